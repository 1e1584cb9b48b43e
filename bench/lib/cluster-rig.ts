// What several daemons on one PostgreSQL database share, set up as the README's "More than one box"
// says and test/cluster/three-daemons.test.ts does: one Anvil (--rpc-url), one `tradevaultd
// --sim-only` (reached by each daemon through its own budget proxy, servers/budget-proxy.ts), one
// operator key file and one TRADEVAULT_SECRET. Daemon i always runs in data directory d<i> behind
// proxy i, so a restarted daemon keeps its daemon id and its "IP".
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { toQuantity, Wallet } from "ethers";
import pg from "pg";
import { startEmbeddedNode, type EmbeddedNode } from "../../daemon/chain/embedded-node.js";
import { freePort } from "../../test/helpers/util.js";
import type { ChainPlace } from "./chain-vaults.js";
import { tempDir } from "./daemon-host.js";
import { startTradevaultd, type Tradevaultd } from "./tradevaultd.js";
import { startWorker, type Worker } from "./worker-client.js";

export const SECRET = "one secret for every daemon of the benchmark";

export interface Lease {
  vault: string;
  holder: string;
}

export interface SharedParts {
  dir: string;
  node: EmbeddedNode;
  sim: Tradevaultd;
  simUrl: string;
  close(): Promise<void>;
}

/** A funded operator key in a file of its own; its path. */
export async function operatorKeyFile(node: EmbeddedNode, dir: string, name: string): Promise<string> {
  const operator = Wallet.createRandom();
  const file = join(dir, `${name}.key`);
  writeFileSync(file, operator.privateKey, { mode: 0o600 });
  await node.rpc.request({ method: "anvil_setBalance", params: [operator.address, toQuantity(10n ** 21n)] });
  return file;
}

/** An Anvil with an HTTP port and a `--sim-only` exchange with a static price feed. */
export async function startSharedParts(): Promise<SharedParts> {
  const tmp = tempDir("tradevault-scale-");
  let node: EmbeddedNode | undefined;
  try {
    node = await startEmbeddedNode({ socketDir: join(tmp.path, "anvil"), httpPort: await freePort(), genesisTime: Math.floor(Date.now() / 1000), archive: true });
    const simPort = await freePort();
    const simUrl = `http://127.0.0.1:${simPort}`;
    const sim = await startTradevaultd(
      ["--sim-only", "--sim-port", String(simPort), "--data-dir", join(tmp.path, "sim"), "--sim-feed", "static", "--log-level", "warn"],
      { url: simUrl, readyPath: "/info" },
    );
    const n = node;
    return { dir: tmp.path, node, sim, simUrl, close: async () => {
      await sim.stop();
      await n.stop();
      tmp.remove();
    } };
  } catch (err) {
    await node?.stop();
    tmp.remove();
    throw err;
  }
}

export interface ClusterRig {
  databaseUrl: string;
  daemons: Array<Tradevaultd | undefined>;
  /** Starts (or restarts) daemon i. */
  start(i: number): Promise<Tradevaultd>;
  /** Stops daemon i (SIGTERM: it hands its leases back). */
  stop(i: number): Promise<void>;
  /** Stops every running daemon (SIGTERM: each hands its leases back). */
  stopAll(): Promise<void>;
  idOf(i: number): string;
  place(): Promise<ChainPlace>;
  /** Vault leases unexpired now, by the database's clock. */
  leases(): Promise<Lease[]>;
  /** The daemon id holding the sender's lease, if any. */
  sender(): Promise<string | undefined>;
  proxies: Worker;
  /** Peak RSS of any daemon so far, KiB. */
  peakRssKb(): number;
  /** The warnings and errors each daemon started so far logged last (for a failure's message). */
  complaints(): string;
  close(): Promise<void>;
}

export async function startClusterRig(parts: SharedParts, databaseUrl: string, size: { daemons: number; intervalS: number }): Promise<ClusterRig> {
  const keyFile = await operatorKeyFile(parts.node, parts.dir, "cluster-operator");
  const proxies = await startWorker(new URL("../servers/budget-proxy.ts", import.meta.url).pathname);
  const db = new pg.Client({ connectionString: databaseUrl });
  try {
    await db.connect();
  } catch (err) {
    await proxies.stop();
    throw err;
  }
  const urls = await proxies.call<string[]>("start", parts.simUrl, size.daemons);
  const daemons: Array<Tradevaultd | undefined> = [];
  const started: Array<{ name: string; proc: Tradevaultd }> = [];
  let peak = 0;
  const dataDir = (i: number) => join(parts.dir, `d${i}`);
  const flags = (i: number) => [
    "--data-dir", dataDir(i), "--database-url", databaseUrl, "--rpc-url", parts.node.url!, "--chain-id", "31337",
    "--exchange-url", urls[i]!, "--operator-key-file", keyFile, "--oracle-interval", String(size.intervalS), "--stale-after", "120",
    "--no-price-stream", "--sign-in-rate-limit", "1000000000", "--order-rate-limit", "1000000000", "--log-level", "warn",
    "--read-weight-per-user", "1000000000", "--read-weight-all-users", "1000000000",
    // The wait for budget happens inside the request here (servers/budget-proxy.ts): 10 s for the
    // answer, as by default, plus the 30 s the daemon's limiter would wait before its request.
    "--exchange-timeout", "40",
  ];
  const stop = async (i: number) => {
    const d = daemons[i];
    if (!d) return;
    daemons[i] = undefined;
    await d.stop();
    peak = Math.max(peak, d.peakRssKb());
  };
  const rig: ClusterRig = {
    databaseUrl, daemons, proxies,
    async start(i) {
      mkdirSync(dataDir(i), { recursive: true });
      const d = await startTradevaultd(flags(i), { env: { TRADEVAULT_SECRET: SECRET } });
      daemons[i] = d;
      started.push({ name: `daemon ${i} (start ${started.filter((s) => s.name.startsWith(`daemon ${i} `)).length + 1})`, proc: d });
      return d;
    },
    stop,
    stopAll: async () => void (await Promise.all(daemons.map((_, i) => stop(i)))),
    idOf: (i) => readFileSync(join(dataDir(i), "daemon-id"), "utf8").trim(),
    async place() {
      const d = daemons.find(Boolean)!;
      const health = (await (await fetch(`${d.url}/healthz`)).json()) as { data: { chain: { chainId: number; factory: string } } };
      return { rpcUrl: parts.node.url!, chainId: health.data.chain.chainId, factory: health.data.chain.factory };
    },
    async leases() {
      const r = await db.query<{ key: string; holder: string }>(
        `select key, holder from leases where key like 'vault:%' and expires_at > (extract(epoch from clock_timestamp()) * 1000)::bigint`);
      return r.rows.map((row) => ({ vault: row.key.slice("vault:".length), holder: row.holder }));
    },
    async sender() {
      const r = await db.query<{ holder: string }>(
        `select holder from leases where key like 'sender:%' and expires_at > (extract(epoch from clock_timestamp()) * 1000)::bigint`);
      return r.rows[0]?.holder;
    },
    peakRssKb: () => Math.max(peak, ...daemons.map((d) => d?.peakRssKb() ?? 0)),
    complaints: () => started.slice(-8).map(({ name, proc }) => {
      const lines = proc.log().split("\n").filter((l) => /"level":(40|50|60)/.test(l)).slice(-6);
      return `${name}: ${lines.length ? lines.join("\n  ") : "no warnings"}`;
    }).join("\n"),
    async close() {
      await rig.stopAll();
      await db.end();
      await proxies.stop();
    },
  };
  return rig;
}
