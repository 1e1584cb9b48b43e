// order-path: POST /api/trade with a resting limit order (validation, audit row before and after,
// agent signature, the sim), one at a time, against the same order sent straight to the sim with the
// SDK from this process, the two alternating order by order. A run's overhead is the difference of its
// two medians; the figure is the median of the runs' overheads, each run listed so the noise shows.
// Also reports the SQLite commits an order costs and what an fsync costs here.
import { HttpTransport } from "@nktkas/hyperliquid";
import { fsyncLatency } from "./lib/fsync.js";
import { orderToSim, orderViaDaemon } from "./lib/order-legs.js";
import { profiled } from "./lib/profile.js";
import { httpClient, timeInterleaved, timeSequential } from "./lib/load.js";
import { fmt, mib, type BenchResult } from "./lib/report.js";
import { median, summarize, type LatencySummary } from "./lib/stats.js";
import { startWorker, type ProcessUsage } from "./lib/worker-client.js";
import type { OrderAccounts, OrderDesk } from "./servers/order-desk.js";

export interface OrderPathSize {
  orders: number;
  runs: number;
  warmup: number;
  /** Orders placed (untimed) while counting commits. */
  commitProbe: number;
}

export const ORDER_PATH_FULL: OrderPathSize = { orders: 300, runs: 5, warmup: 30, commitProbe: 50 };

export async function orderPath(size: OrderPathSize = ORDER_PATH_FULL): Promise<BenchResult> {
  const started = Date.now();
  const worker = await startWorker(new URL("./servers/order-desk.ts", import.meta.url).pathname);
  const daemonRuns: LatencySummary[] = [];
  const directRuns: LatencySummary[] = [];
  let commits: Record<string, number> = {};
  let usage: ProcessUsage;
  try {
    const desk = await worker.call<OrderDesk>("start");
    const client = httpClient(desk.url);
    const transport = new HttpTransport({ apiUrl: desk.simUrl, isTestnet: true });
    // Each run gets fresh accounts, so both paths start on an empty book (the sim's margin check
    // walks the account's open orders, which would otherwise slow every run down a little more).
    const paths = async () => {
      const a = await worker.call<OrderAccounts>("accounts");
      return { viaDaemon: orderViaDaemon(client, a.token), direct: orderToSim(transport, a.directKey, desk.btcAsset) };
    };
    for (let i = 0; i < size.runs; i++) {
      const { viaDaemon, direct } = await paths();
      await timeInterleaved(viaDaemon, direct, size.warmup);
      const run = () => timeInterleaved(viaDaemon, direct, size.orders);
      const [viaTimes, directTimes] = await (i === 0 ? profiled(worker, "order-path-daemon", run) : run());
      daemonRuns.push(summarize(viaTimes));
      directRuns.push(summarize(directTimes));
    }
    // Counted apart from the timed runs: the counter wraps every statement.
    const { viaDaemon } = await paths();
    await worker.call("countCommits");
    await timeSequential(viaDaemon, size.commitProbe);
    commits = await worker.call<Record<string, number>>("commits");
    client.close();
  } finally {
    usage = await worker.stop();
  }
  const d = { p50: median(daemonRuns.map((r) => r.p50)), p99: median(daemonRuns.map((r) => r.p99)) };
  const b = { p50: median(directRuns.map((r) => r.p50)), p99: median(directRuns.map((r) => r.p99)) };
  const overheads = daemonRuns.map((r, i) => r.p50 - directRuns[i]!.p50);
  const overheadsP99 = daemonRuns.map((r, i) => r.p99 - directRuns[i]!.p99);
  const overhead = median(overheads);
  const list = (ms: number[]) => ms.map((v) => fmt(v)).join(", ");
  const perOrder = Object.entries(commits).map(([file, n]) => `${fmt(n / size.commitProbe)} in ${file}`).join(", ");
  const fsync = fsyncLatency(200);
  return {
    name: "order-path",
    setup: `POST /api/trade, resting GTC limit order, ${size.runs} x ${size.orders} orders one at a time, alternating with the baseline's`,
    figures: [
      { label: "p50 latency", value: d.p50, unit: "ms", baseline: b.p50 },
      { label: "p99 latency", value: d.p99, unit: "ms", baseline: b.p99 },
      // The budget is absolute: an order takes the exchange 600-900 ms, so a few ms of the daemon's go unfelt.
      { label: "daemon overhead at p50", value: overhead, unit: "ms", ratio: "-", target: "< 5 ms", met: overhead < 5 },
      { label: "daemon overhead at p99", value: median(overheadsP99), unit: "ms", ratio: "-", target: "report" },
    ],
    peakRssMb: mib(usage.maxRssKb),
    notes: [
      `Overhead at p50 run by run (ms, the figure is their median): ${list(overheads)}; at p99: ${list(overheadsP99)}.`,
      `Durability: SQLite commits per order (each one fsync, synchronous=FULL, unless marked): ${perOrder || "none counted"}; ` +
        `an fdatasync on this disk takes ${fmt(fsync.p50)} ms at p50, ${fmt(fsync.p99)} ms at p99.`,
      `Baseline: the same order signed by the SDK in the benchmark process and sent straight to the daemon's embedded sim.`,
    ],
    seconds: (Date.now() - started) / 1000,
  };
}
