// Several built `tradevaultd` processes on one PostgreSQL database, as an operator runs them: one
// Anvil chain (--rpc-url), one `tradevaultd --sim-only` exchange (--exchange-url), one operator key
// file and one TRADEVAULT_SECRET. Daemon i always runs in data directory d<i>, so a restarted one
// keeps its daemon id. Each process can be killed, stopped (SIGSTOP) and continued, as a box fails.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Wallet, toQuantity } from "ethers";
import { sql } from "kysely";
import { startEmbeddedNode, type EmbeddedNode } from "../../daemon/chain/embedded-node.js";
import type { Store } from "../../daemon/db/store.js";
import { httpClient, randomWallet, signIn, signTyped, type HttpClient, type Party } from "../helpers/daemon.js";
import { freePort, waitUntil } from "../helpers/util.js";

const BIN = fileURLToPath(new URL("../../bin/tradevaultd", import.meta.url));
export const SECRET = "one secret for every daemon";

export interface Proc {
  url: string;
  http: HttpClient;
  child: ChildProcess;
  exited: Promise<void>;
  log(): string;
  running(): boolean;
  /** Peak resident set so far, KiB (Linux's VmHWM, last read while it ran; 0 without /proc). */
  peakRssKb(): number;
  /** SIGKILL; resolves at exit. */
  kill(): Promise<void>;
  /** SIGTERM; resolves at exit. */
  stop(): Promise<void>;
  /** SIGSTOP / SIGCONT: a box that stalls and wakes. */
  pause(): void;
  resume(): void;
}

/** Starts `tradevaultd <args>` on a free port, its output kept. */
export async function runTradevaultd(args: string[], env: Record<string, string> = {}): Promise<Proc> {
  const port = await freePort();
  // TRADEVAULT_* in our own environment would change the daemon's flags.
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("TRADEVAULT_")));
  const child = spawn(process.execPath, [BIN, ...args, "--port", String(port)], { env: { ...clean, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  const keep = (d: Buffer) => (out = (out + String(d)).slice(-200_000));
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  const running = () => child.exitCode === null && child.signalCode === null;
  let peak = 0;
  const peakRssKb = () => (peak = Math.max(peak, running() ? vmHwmKb(child.pid!) : 0));
  const signal = async (s: NodeJS.Signals) => {
    if (running()) {
      peakRssKb();
      child.kill("SIGCONT");
      child.kill(s);
    }
    await exited;
  };
  return {
    url: `http://127.0.0.1:${port}`, http: httpClient(`http://127.0.0.1:${port}`), child, exited, log: () => out, running, peakRssKb,
    kill: () => signal("SIGKILL"), stop: () => signal("SIGTERM"),
    pause: () => void (running() && child.kill("SIGSTOP")),
    resume: () => void (running() && child.kill("SIGCONT")),
  };
}

function vmHwmKb(pid: number): number {
  try {
    return Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
  } catch {
    return 0; // not Linux, or already gone
  }
}

/** Until `path` answers below 500 (the process still running). */
export async function answers(p: Proc, path: string, url = p.url): Promise<void> {
  await waitUntil(async () => {
    if (!p.running()) throw new Error(`exited ${p.child.exitCode ?? p.child.signalCode}:\n${p.log().slice(-3000)}`);
    return (await fetch(`${url}${path}`)).status < 500;
  }, { slowMs: 120_000, what: `${url}${path}` });
}

export interface ClusterOptions {
  dir: string;
  /** The database URL daemon i is given (each may carry its own application_name). */
  databaseUrl: (i: number) => string;
  daemons: number;
  intervalS: number;
  /** Extra flags for every daemon. */
  flags?: string[];
}

export interface Cluster {
  node: EmbeddedNode;
  sim: Proc;
  simUrl: string;
  operator: string;
  daemons: Proc[];
  /** Starts (or restarts) daemon i on its data directory; resolves once it answers /healthz. */
  start(i: number): Promise<Proc>;
  idOf(i: number): string;
  /** Every process started so far, restarts included, with its name. */
  all(): Array<{ name: string; proc: Proc }>;
  /** The warnings and errors each process logged last. */
  complaints(): string;
  close(): Promise<void>;
}

export async function startCluster(o: ClusterOptions): Promise<Cluster> {
  const started: Array<{ name: string; proc: Proc }> = [];
  const node = await startEmbeddedNode({ socketDir: join(o.dir, "anvil"), httpPort: await freePort(), genesisTime: Math.floor(Date.now() / 1000), archive: true });
  const stopAll = async () => {
    for (const { proc } of started) await proc.kill();
    await node.stop();
  };
  try {
    const operator = Wallet.createRandom();
    const keyFile = join(o.dir, "operator.key");
    writeFileSync(keyFile, operator.privateKey, { mode: 0o600 });
    await node.rpc.request({ method: "anvil_setBalance", params: [operator.address, toQuantity(10n ** 21n)] });
    const simPort = await freePort();
    const sim = await runTradevaultd(["--sim-only", "--sim-port", String(simPort), "--data-dir", join(o.dir, "sim"), "--sim-feed", "static", "--sim-ws-connections-per-ip", "100", "--log-level", "info"]);
    started.push({ name: "sim", proc: sim });
    const simUrl = `http://127.0.0.1:${simPort}`;
    await answers(sim, "/info", simUrl);
    const dataDir = (i: number) => join(o.dir, `d${i}`);
    const flags = (i: number) => [
      "--data-dir", dataDir(i), "--database-url", o.databaseUrl(i), "--rpc-url", node.url!, "--chain-id", "31337",
      "--exchange-url", simUrl, "--operator-key-file", keyFile, "--oracle-interval", String(o.intervalS), "--stale-after", "120",
      "--no-price-stream", "--sign-in-rate-limit", "100000", "--order-rate-limit", "100000", "--log-level", "info",
      "--read-cache", "0", "--read-weight-per-user", "1000000", "--read-weight-all-users", "1000000", ...(o.flags ?? []),
    ];
    const daemons: Proc[] = [];
    const cluster: Cluster = {
      node, sim, simUrl, operator: operator.address, daemons,
      async start(i) {
        mkdirSync(dataDir(i), { recursive: true });
        const d = await runTradevaultd(flags(i), { TRADEVAULT_SECRET: SECRET });
        started.push({ name: `daemon ${i} (start ${started.filter((s) => s.name.startsWith(`daemon ${i} `)).length + 1})`, proc: d });
        daemons[i] = d;
        await answers(d, "/healthz");
        return d;
      },
      idOf: (i) => readFileSync(join(dataDir(i), "daemon-id"), "utf8").trim(),
      all: () => [...started],
      complaints: () => started.map(({ name, proc }) => {
        const code = proc.child.exitCode ?? proc.child.signalCode;
        if (code !== null && code !== "SIGKILL" && code !== "SIGTERM") return `${name} exited (${code}):\n  ${proc.log().slice(-2500)}`;
        const lines = proc.log().split("\n").filter((l) => /"level":(40|50|60)/.test(l)).slice(-8);
        return `${name}: ${lines.length ? lines.join("\n  ") : "no warnings"}`;
      }).join("\n"),
      close: stopAll,
    };
    await Promise.all(Array.from({ length: o.daemons }, (_, i) => cluster.start(i)));
    return cluster;
  } catch (err) {
    await stopAll();
    throw err;
  }
}

export async function partyAt(http: HttpClient): Promise<Party> {
  const wallet = randomWallet();
  const { token } = await signIn(http, wallet);
  return { wallet, token, address: wallet.address };
}

/** Credits `user` on the `--sim-only` exchange. */
export async function simFaucet(simUrl: string, user: string, amount: string): Promise<void> {
  const res = await fetch(`${simUrl}/sim/faucet`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ user, amount }) });
  if (res.status !== 200) throw new Error(`faucet: ${res.status} ${await res.text()}`);
}

/** The proposal a trader makes to an investor, with the terms every cluster test uses. */
export const proposalBody = (investor: Party, trader: Party) => ({
  investor: investor.address, trader: trader.address, initialBalance: "10000", maxDrawdown: 50, dailyDrawdown: 40,
  dealDeadline: Math.floor(Date.now() / 1000) + 30 * 86_400, profitShare: { trader: 20, investor: 80 },
});

/** Proposes, accepts as both parties, and resolves to the deployed vault's address. */
export async function vaultAt(http: HttpClient, investor: Party, trader: Party): Promise<string> {
  const created = await http.post("/api/proposals", proposalBody(investor, trader), { token: trader.token });
  if (created.status !== 200) throw new Error(`propose: ${created.status} ${JSON.stringify(created.body)}`);
  const p = created.body.data.proposal;
  const first = await http.post(`/api/proposals/${p.id}/accept`, { signature: await signTyped(trader.wallet, p.typedData) }, { token: trader.token });
  if (first.status !== 200) throw new Error(`trader's accept: ${first.status} ${JSON.stringify(first.body)}`);
  const done = await http.post(`/api/proposals/${p.id}/accept`, { signature: await signTyped(investor.wallet, p.typedData) }, { token: investor.token });
  if (done.status !== 200) throw new Error(`investor's accept: ${done.status} ${JSON.stringify(done.body)}`);
  // Deployed in the answer, or (the chain slow to answer) by the proposals' sweep soon after.
  const deployed = (done.body.data.proposal.vaultAddress as string | null) ?? await waitUntil(async () => {
    const r = await http.get(`/api/proposals/${p.id}`, { token: trader.token });
    return r.body.data?.proposal?.vaultAddress as string | undefined;
  }, { slowMs: 120_000, what: `proposal ${p.id} deployed (accepted: ${JSON.stringify(done.body.data.proposal)})` });
  return deployed!;
}

/** BalanceUpdated events in the order they were stored, with their chain position. */
export async function balanceEvents(s: Store): Promise<Array<{ vault: string; observedAt: number; block: number; logIndex: number }>> {
  const rows = await sql<{ vault: string; data: string; block_number: number; log_index: number }>`
    select v.address as vault, e.data, e.block_number, e.log_index from vault_events e join vaults v on v.num = e.vault_num
    where e.type = 'BalanceUpdated' order by e.id`.execute(s.db);
  const { unpackEventData } = await import("../../daemon/db/event-data.js");
  return rows.rows.map((r) => ({
    vault: r.vault, block: Number(r.block_number), logIndex: Number(r.log_index),
    observedAt: Number((unpackEventData("BalanceUpdated", r.data) as { observedAt: number | string }).observedAt),
  }));
}

/** Vault leases unexpired now, by the database's clock. */
export async function vaultLeases(s: Store): Promise<Array<{ vault: string; holder: string; epoch: number }>> {
  const rows = await sql<{ key: string; holder: string; epoch: number }>`
    select key, holder, epoch from leases where key like 'vault:%' and expires_at > (extract(epoch from clock_timestamp()) * 1000)::bigint`.execute(s.db);
  return rows.rows.map((r) => ({ vault: r.key.slice("vault:".length), holder: r.holder, epoch: Number(r.epoch) }));
}
