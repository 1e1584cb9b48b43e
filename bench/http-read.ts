// http-read: authenticated GET /api/vaults, for a wallet with no vault and for one trading `vaults`
// vaults, under `connections` concurrent connections. The budget is absolute (DESIGN section 9): a
// user with 10 vaults served at 3,000 requests a second or more at 64 connections, p99 under 50 ms.
// A bare Koa app answering the same JSON bodies runs in the same rounds, as context only. The daemon
// (embedded defaults: the sim with its random feed, the embedded chain) and the baseline each run in
// their own process; autocannon runs in this one (lib/read-rounds.ts).
import { loadavg } from "node:os";
import { fmt, mib, type BenchResult, type Figure } from "./lib/report.js";
import { bareServer, CASES, daemonServer, readNotes, readRounds, type Measured, type ReadSize } from "./lib/read-rounds.js";
import { median, medianOf } from "./lib/stats.js";
import { startWorker, type ProcessUsage } from "./lib/worker-client.js";
import type { VaultListTarget } from "./servers/vault-list.js";

export type HttpReadSize = ReadSize;

export const HTTP_READ_FULL: HttpReadSize = { vaults: 10, connections: 64, durationS: 5, runs: 5, warmupS: 2 };

/** The budget, for the case with vaults. */
export const HTTP_READ_BUDGET = { minRps: 3000, maxP99Ms: 50 };

export const serverPath = (name: string) => new URL(`./servers/${name}.ts`, import.meta.url).pathname;

/** The daemon's median round per case, the bare Koa figure and ratio beside it; the budget on the case with vaults. */
function figures(d: Measured, bare: Measured, vaults: number): Figure[] {
  const failed = CASES.reduce((n, c) => n + d.runs[c].reduce((k, r) => k + r.failed, 0), 0);
  return CASES.flatMap((c) => {
    const label = c === "empty" ? "no vaults" : `${vaults} vaults`;
    const dm = medianOf(d.runs[c].map(({ rps, p50, p99 }) => ({ rps, p50, p99 })));
    const bm = medianOf(bare.runs[c].map(({ rps, p50, p99 }) => ({ rps, p50, p99 })));
    const ratio = median(d.runs[c].map((r, i) => r.rps / bare.runs[c][i]!.rps));
    const budgeted = c === "full";
    // A failed response (a 401, say) is fast: no target counts as met with any.
    return [
      {
        label: `requests/s, ${label}`, value: dm.rps, unit: "req/s", baseline: bm.rps, ratio: `${fmt(ratio)}x`,
        ...(budgeted ? { target: `>= ${HTTP_READ_BUDGET.minRps} req/s`, met: failed === 0 && dm.rps >= HTTP_READ_BUDGET.minRps } : {}),
      },
      { label: `p50 latency, ${label}`, value: dm.p50, unit: "ms", baseline: bm.p50 },
      {
        label: `p99 latency, ${label}`, value: dm.p99, unit: "ms", baseline: bm.p99,
        ...(budgeted ? { target: `< ${HTTP_READ_BUDGET.maxP99Ms} ms`, met: failed === 0 && dm.p99 < HTTP_READ_BUDGET.maxP99Ms } : {}),
      },
    ];
  });
}

export async function httpRead(size: HttpReadSize = HTTP_READ_FULL): Promise<BenchResult> {
  const started = Date.now();
  const loadBefore = loadavg();
  const daemon = await startWorker(serverPath("vault-list"));
  const bare = await startWorker(serverPath("bare-koa")).catch(async (err) => {
    await daemon.stop();
    throw err;
  });
  let daemonUsage: ProcessUsage;
  let measured;
  try {
    const target = await daemon.call<VaultListTarget>("start", size.vaults);
    const baseline = await bare.call<{ url: string }>("start", { "/empty": target.cases.empty.body, "/full": target.cases.full.body });
    measured = await readRounds([daemonServer("daemon", daemon, target), bareServer(bare, baseline.url)], size);
  } finally {
    daemonUsage = await daemon.stop();
    await bare.stop();
  }
  const [d, b] = measured as [Measured, Measured];
  const load = (l: number[]) => l.map((x) => x.toFixed(2)).join(" ");
  return {
    name: "http-read",
    setup: `GET /api/vaults, 0 and ${size.vaults} vaults, ${size.connections} connections, ${size.runs} rounds x ${size.durationS} s each`,
    figures: figures(d, b, size.vaults),
    peakRssMb: mib(daemonUsage.maxRssKb),
    notes: [
      ...readNotes(d, b, size.vaults),
      `Load average (1, 5, 15 min) before ${load(loadBefore)}, after ${load(loadavg())}: the machine may be shared, and bare Koa's figures show how much of it this run had.`,
      "The daemon runs the embedded defaults (sim with its random feed and the price stream, embedded chain), logging silenced; the oracle loop is off (startOracle: false) so that a cycle's exchange reads do not land inside one run.",
    ],
    seconds: (Date.now() - started) / 1000,
  };
}
