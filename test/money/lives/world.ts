// The place vault lives are played: the built `tradevaultd` as a child process on its own data
// directory (an oracle cycle a second, a static price feed), which a life may SIGKILL and start again;
// and the calls a life makes, over HTTP as users and the sim's loopback controls would. On SQLite the
// daemon runs its embedded sim and chain; on PostgreSQL (test/helpers/stores.ts) two daemons share
// the database, an external Anvil and a `tradevaultd --sim-only` (set up as bench/lib/cluster-rig.ts
// does): the life's calls go to each in turn, and a kill takes one of them down.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { JsonRpcProvider, NonceManager, toQuantity, Wallet } from "ethers";
import { deploySettlementToken, mintSettlementToken } from "../../../daemon/chain/contracts.js";
import { EMBEDDED_CHAIN_ID, type EmbeddedNode } from "../../../daemon/chain/embedded-node.js";
import { parseDecimal, toDecimalString } from "../../../daemon/lib/decimal.js";
import { operatorKeyFile, startSharedParts } from "../../../bench/lib/cluster-rig.js";
import { startTradevaultd } from "../../../bench/lib/tradevaultd.js";
import { httpClient, type HttpClient, type Party } from "../../helpers/daemon.js";
import { freshDatabase } from "../../helpers/postgres.js";
import { storeKind } from "../../helpers/stores.js";
import { tempDir, waitUntil } from "../../helpers/util.js";
import { startDaemonProcess } from "../../crash/_daemon-process.js";

export interface World {
  http(): HttpClient;
  /** The sim's own base URL (its loopback controls and /info). */
  simUrl(): string;
  rpcUrl(): string;
  /** SIGKILL a daemon (each in turn, when there are two) and start it again on the same data directory. */
  restart(): Promise<void>;
  /** After a sim faucet credit: the chain's settlement token too, where the sim does not mint it. */
  minted(user: string, amount: number | string): Promise<void>;
  log(): string;
  close(): Promise<void>;
}

interface Daemon {
  url: string;
  log(): string;
  kill(): Promise<void>;
}

/** The daemons under test, what they reach, and how to start one again. */
interface Setting {
  /** How many daemons share the work. */
  daemons: number;
  start(i: number): Promise<Daemon>;
  /** The sim and the chain, once the daemon runs (the embedded chain's RPC moves with every start). */
  places(d: Daemon): Promise<{ sim: string; rpc: string }>;
  minted(user: string, amount: number | string): Promise<void>;
  close(): Promise<void>;
}

export async function startWorld(): Promise<World> {
  const setting = storeKind === "postgres" ? await sharedSetting() : embeddedSetting();
  const ds: Daemon[] = [];
  let places = { sim: "", rpc: "" };
  let next = 0;
  let killed = 0;
  const start = async (i: number) => {
    ds[i] = await setting.start(i);
    places = await setting.places(ds[i]!);
  };
  try {
    for (let i = 0; i < setting.daemons; i++) await start(i);
  } catch (e) {
    for (const d of ds) await d?.kill();
    await setting.close();
    throw e;
  }
  return {
    http: () => httpClient(ds[next++ % ds.length]!.url),
    simUrl: () => places.sim,
    rpcUrl: () => places.rpc,
    async restart() {
      const i = killed++ % ds.length;
      await ds[i]!.kill();
      await start(i);
    },
    minted: (user, amount) => setting.minted(user, amount),
    log: () => ds.map((d, i) => (ds.length > 1 ? `--- daemon ${i}\n${d.log()}` : d.log())).join("\n"),
    async close() {
      for (const d of ds) await d?.kill();
      await setting.close();
    },
  };
}

/** SQLite: the daemon's embedded sim and chain; its faucet mints the chain's test token itself. */
function embeddedSetting(): Setting {
  const dir = tempDir("tradevault-lives-");
  return {
    daemons: 1,
    // Compactions drop old blocks, and with them the events a verification reads: none within a run.
    start: () => startDaemonProcess(dir.path, ["--chain-compact-blocks", "100000"]),
    async places(d) {
      const h = await httpClient(d.url).get("/healthz");
      return { sim: h.body.data.exchange.url, rpc: h.body.data.chain.rpcUrl };
    },
    minted: async () => undefined,
    close: async () => dir.remove(),
  };
}

/**
 * PostgreSQL: a fresh database, an archive Anvil over HTTP and a `--sim-only` exchange
 * (startSharedParts), the operator's funded key in a file, and TRADEVAULT_SECRET. The test token is
 * deployed here, owned by a minter of the test's own, and given with --settlement-token: minting with
 * the operator's key would take nonces from under the daemon's sender.
 */
async function sharedSetting(): Promise<Setting> {
  const databaseUrl = await freshDatabase();
  const parts = await startSharedParts();
  try {
    const keyFile = await operatorKeyFile(parts.node, parts.dir, "lives-operator");
    const minter = await startMinter(parts.node);
    // startDaemonProcess's flags where they apply (it keeps TRADEVAULT_* out of the environment).
    const flags = (dataDir: string) => [
      "--data-dir", dataDir, "--host", "127.0.0.1", "--database-url", databaseUrl,
      "--rpc-url", parts.node.url!, "--chain-id", String(EMBEDDED_CHAIN_ID), "--exchange-url", parts.simUrl,
      "--operator-key-file", keyFile, "--settlement-token", minter.token,
      "--oracle-interval", "1", "--stale-after", "120", "--sign-in-rate-limit", "10000", "--order-rate-limit", "10000",
      "--read-cache", "0", "--read-weight-per-user", "1000000", "--read-weight-all-users", "1000000",
      "--log-level", process.env.TEST_LOG ?? "info",
    ];
    return {
      daemons: 2,
      start: (i) => {
        const dataDir = join(parts.dir, `daemon-${i}`);
        mkdirSync(dataDir, { recursive: true });
        return startTradevaultd(flags(dataDir), { env: { TRADEVAULT_SECRET: "the lives' one secret" } });
      },
      places: async () => ({ sim: parts.simUrl, rpc: parts.node.url! }),
      minted: minter.mint,
      async close() {
        minter.close();
        await parts.close();
      },
    };
  } catch (e) {
    await parts.close();
    throw e;
  }
}

/** A funded wallet that deploys the test token and, as its owner, mints it. */
async function startMinter(node: EmbeddedNode) {
  const provider = new JsonRpcProvider(node.url, EMBEDDED_CHAIN_ID, { staticNetwork: true, pollingInterval: 50 });
  const wallet = Wallet.createRandom().connect(provider);
  await node.rpc.request({ method: "anvil_setBalance", params: [wallet.address, toQuantity(10n ** 21n)] });
  // Nonces counted here: two faucets at once must not send with the same one.
  const signer = new NonceManager(wallet);
  try {
    const { address: token } = await deploySettlementToken(signer);
    return {
      token,
      mint: async (to: string, amount: number | string) =>
        void (await mintSettlementToken(signer, { token, to, amount: parseDecimal(toDecimalString(amount), 6) })),
      close: () => provider.destroy(),
    };
  } catch (e) {
    provider.destroy();
    throw e;
  }
}

/** POST to one of the sim's loopback controls; throws with its answer unless 200. */
export async function simControl(w: World, path: string, body: Record<string, unknown>): Promise<void> {
  const res = await fetch(`${w.simUrl()}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  if (res.status !== 200) throw new Error(`${path} ${JSON.stringify(body)}: ${res.status} ${await res.text()}`);
  if (path === "/sim/faucet") await w.minted(String(body.user), body.amount as number | string);
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

/** Waits for a reading newer than the one observed at `afterSeconds` (the vault's last, read just before): an oracle cycle that saw the account as it is now. */
export async function nextReading(w: World, who: Party, vault: string, afterSeconds: number): Promise<VaultView> {
  return waitUntil<VaultView | undefined>(async () => {
    const v = await vaultView(w, who, vault);
    return v.closed || (v.lastBalanceUpdate ?? 0) > afterSeconds ? v : undefined;
  }, { slowMs: 120_000, intervalMs: 100, what: `a reading of ${vault} after ${afterSeconds}` }) as Promise<VaultView>;
}
