// scale-out: several built daemons on one PostgreSQL database, as an operator runs them
// (lib/cluster-rig.ts): the vaults read per oracle interval and the cycle time with 1, 2 and 3
// daemons, each with an exchange budget of its own; failover time over several kills; authenticated
// read throughput through two daemons against one; and the order path on PostgreSQL against SQLite.
// The benchmark starts its own PostgreSQL server; where none is installed, only the SQLite order
// path is measured and the note says why.
import { Wallet } from "ethers";
import pg from "pg";
import { waitUntil } from "../test/helpers/util.js";
import { watchBalances, type BalanceWatch } from "./lib/balance-watch.js";
import { createChainVaults } from "./lib/chain-vaults.js";
import { startClusterRig, startSharedParts, type SharedParts } from "./lib/cluster-rig.js";
import { waitReadings } from "./lib/cluster-waits.js";
import { startBenchPostgres, type BenchPostgres } from "./lib/postgres.js";
import { progress, type BenchResult } from "./lib/report.js";
import { coverage, type CoverageSize } from "./scale-out-coverage.js";
import { failover } from "./scale-out-failover.js";
import { ordersByStore, type OrdersSize } from "./scale-out-orders.js";
import { reads, type ReadsSize } from "./scale-out-reads.js";
import { scaleOutResult, type ClusterFigures } from "./scale-out-report.js";
import { writes, type WritesSize } from "./scale-out-writes.js";

export interface ScaleOutSize {
  vaults: number;
  intervalS: number;
  /** The most daemons (failover runs with this many). */
  daemons: number;
  coverage: CoverageSize;
  /** Kills with every bucket full, then with every bucket drained. */
  kills: { full: number; spent: number };
  reads: ReadsSize;
  writes: WritesSize;
  orders: OrdersSize;
}

export const SCALE_OUT_FULL: ScaleOutSize = {
  vaults: 60, intervalS: 2, daemons: 3, coverage: { order: [1, 2, 3, 2, 1], windowS: 15 }, kills: { full: 10, spent: 2 },
  reads: { connections: 64, durationS: 5, runs: 3, warmupS: 2 },
  writes: { connections: 4, durationS: 5, runs: 3 },
  orders: { orders: 100, runs: 3, warmup: 10 },
};

export async function scaleOut(size: ScaleOutSize = SCALE_OUT_FULL): Promise<BenchResult> {
  const started = Date.now();
  const server = await startBenchPostgres();
  const postgres = "problem" in server ? undefined : server;
  let parts: SharedParts | undefined;
  try {
    parts = await startSharedParts();
    const cluster = postgres ? await clusterFigures(parts, postgres, size) : undefined;
    const ordersStarted = Date.now();
    progress("the order path by store");
    const orders = await ordersByStore(parts, await postgres?.database(), size.orders);
    const phases = { ...cluster?.phases, orders: (Date.now() - ordersStarted) / 1000 };
    return scaleOutResult({ size, cluster, orders, phases, skipped: "problem" in server ? server.problem : undefined, seconds: (Date.now() - started) / 1000 });
  } finally {
    await parts?.close();
    await postgres?.stop();
  }
}

/** Every figure that needs the shared database, on one set of vaults made once. */
async function clusterFigures(parts: SharedParts, postgres: BenchPostgres, size: ScaleOutSize): Promise<ClusterFigures> {
  const databaseUrl = await postgres.database();
  const rig = await startClusterRig(parts, databaseUrl, { daemons: size.daemons, intervalS: size.intervalS });
  let watch: BalanceWatch | undefined;
  const phases: Record<string, number> = {};
  let mark = Date.now();
  const lap = (name: string) => {
    phases[name] = (Date.now() - mark) / 1000;
    mark = Date.now();
  };
  try {
    // The first daemon deploys the contracts and, with the budget open, reads every vault once and
    // checks every account's mode (10 a cycle, then every 15 minutes), so no run pays for that.
    progress(`set-up: ${size.vaults} vaults`);
    await rig.start(0);
    const trader = Wallet.createRandom();
    const vaults = await createChainVaults(await rig.place(), parts.simUrl, trader, size.vaults);
    watch = await watchBalances(databaseUrl);
    await waitReadings(watch, vaults, 0, 1);
    await modesChecked(databaseUrl);
    await rig.stopAll();
    lap("set-up");
    const runs = await coverage(rig, watch, vaults, size.intervalS, size.coverage);
    lap("coverage");
    const kills = await failover(rig, watch, vaults, size.daemons, size.kills);
    lap("failover");
    await watch.stop();
    watch = undefined;
    progress("reads through one and two daemons");
    const readRuns = await reads(rig, trader, vaults.length, size.reads);
    lap("reads");
    const writeRuns = await writes(rig, parts.simUrl, size.daemons, size.writes);
    lap("writes");
    return { coverage: runs, kills, reads: readRuns, writes: writeRuns, peakRssKb: rig.peakRssKb(), phases };
  } catch (err) {
    const leases = await rig.leases().catch(() => []);
    const held = [...new Set(leases.map((l) => l.holder))].map((h) => `${h}: ${leases.filter((l) => l.holder === h).length}`).join(", ");
    throw new Error(`${(err as Error).message}\nleases now: ${held || "none"}\n${rig.complaints()}`);
  } finally {
    await watch?.stop();
    await rig.close();
  }
}

async function modesChecked(databaseUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await waitUntil(async () => {
      const r = await client.query<{ n: string }>("select count(*) as n from vaults where account_mode_checked_at is null");
      return Number(r.rows[0]!.n) === 0;
    }, { slowMs: 120_000, intervalMs: 200, what: "every vault's account mode checked" });
  } finally {
    await client.end();
  }
}
