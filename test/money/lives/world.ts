// The place vault lives are played: the built `tradevaultd` as a child process on its own data
// directory (embedded sim and chain, an oracle cycle a second, a static price feed), which a life may
// SIGKILL and start again; and the calls a life makes, over HTTP as users and the sim's loopback
// controls would.
import { httpClient, type HttpClient, type Party } from "../../helpers/daemon.js";
import { tempDir, waitUntil } from "../../helpers/util.js";
import { startDaemonProcess, type DaemonProcess } from "../../crash/_daemon-process.js";

export interface World {
  http(): HttpClient;
  /** The sim's own base URL (its loopback controls and /info). */
  simUrl(): string;
  rpcUrl(): string;
  /** SIGKILL the daemon and start it again on the same data directory. */
  restart(): Promise<void>;
  log(): string;
  close(): Promise<void>;
}

export async function startWorld(): Promise<World> {
  const dir = tempDir("tradevault-lives-");
  let d: DaemonProcess;
  let sim = "";
  let rpc = "";
  async function start() {
    // Compactions drop old blocks, and with them the events a verification reads: none within a run.
    d = await startDaemonProcess(dir.path, ["--chain-compact-blocks", "100000"]);
    const h = await httpClient(d.url).get("/healthz");
    sim = h.body.data.exchange.url;
    rpc = h.body.data.chain.rpcUrl;
  }
  await start();
  return {
    http: () => httpClient(d.url),
    simUrl: () => sim,
    rpcUrl: () => rpc,
    async restart() {
      await d.kill();
      await start();
    },
    log: () => d.log(),
    async close() {
      await d.kill();
      dir.remove();
    },
  };
}

/** POST to one of the sim's loopback controls; throws with its answer unless 200. */
export async function simControl(w: World, path: string, body: Record<string, unknown>): Promise<void> {
  const res = await fetch(`${w.simUrl()}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  if (res.status !== 200) throw new Error(`${path} ${JSON.stringify(body)}: ${res.status} ${await res.text()}`);
}

/** The sim's own answer to an info request. */
export async function simInfo<T>(w: World, body: Record<string, unknown>): Promise<T> {
  const res = await fetch(`${w.simUrl()}/info`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return (await res.json()) as T;
}

export interface VaultView {
  currentBalance: string;
  lastBalanceUpdate: number | null;
  paused: boolean;
  closed: boolean;
  status: string;
}

export async function vaultView(w: World, who: Party, vault: string): Promise<VaultView> {
  const r = await w.http().get(`/api/vaults/${vault}`, { token: who.token });
  if (r.status !== 200) throw new Error(`detail of ${vault}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.data.vault;
}

/** Waits for a reading observed after `afterSeconds` (an oracle cycle that saw the account as it is now). */
export async function nextReading(w: World, who: Party, vault: string, afterSeconds: number): Promise<VaultView> {
  return waitUntil<VaultView | undefined>(async () => {
    const v = await vaultView(w, who, vault);
    return v.closed || (v.lastBalanceUpdate ?? 0) > afterSeconds ? v : undefined;
  }, { timeoutMs: 120_000, intervalMs: 100, what: `a reading of ${vault} after ${afterSeconds}` }) as Promise<VaultView>;
}
