// breach: how soon a vault is paused after its price path crosses a drawdown limit between oracle
// polls. A 3x BTC long under a 5% daily limit while BTC falls 0.1% every 200 ms (the vault about 0.3
// points a step, 1.5 a second): time from the step that crossed the limit to the stored Paused event,
// and the drawdown it paused at beyond the limit, with the price stream (the daemon) and without it
// (--no-price-stream: the oracle's poll alone, the baseline).
import { ENFORCEMENT_FULL, enforcementFigures, type EnforcementSize } from "./breach-enforcement.js";
import { fmt, mib, type BenchResult } from "./lib/report.js";
import { median, percentile } from "./lib/stats.js";
import { startWorker } from "./lib/worker-client.js";
import type { BreachRun } from "./servers/breach-lab.js";

export interface BreachSize {
  /** How soon a paused vault holds its policy (breach-enforcement.ts); absent: skipped. */
  enforcement?: EnforcementSize;
  runs: number;
  stepMs: number;
  oracleIntervalS: number;
  /** The weight figure: vaults and minutes measured (0 minutes: skipped). */
  weightVaults: number;
  weightMinutes: number;
}

export const BREACH_FULL: BreachSize = { runs: 10, stepMs: 200, oracleIntervalS: 60, weightVaults: 100, weightMinutes: 3, enforcement: ENFORCEMENT_FULL };

async function weight(priceStream: boolean, size: BreachSize) {
  const worker = await startWorker(new URL("./servers/breach-lab.ts", import.meta.url).pathname);
  try {
    return await worker.call<{ perVaultPerMinute: number; earlyWrites: number }>(
      "weight", { priceStream, vaults: size.weightVaults, minutes: size.weightMinutes }, (size.weightMinutes + 20) * 60_000,
    );
  } finally {
    await worker.stop();
  }
}

async function side(priceStream: boolean, size: BreachSize): Promise<{ runs: BreachRun[]; rssKb: number }> {
  const worker = await startWorker(new URL("./servers/breach-lab.ts", import.meta.url).pathname);
  const runs: BreachRun[] = [];
  let rssKb = 0;
  try {
    await worker.call("start", { priceStream, oracleIntervalS: size.oracleIntervalS });
    for (let i = 0; i < size.runs; i++) runs.push(await worker.call<BreachRun>("run", size.stepMs, 3 * size.oracleIntervalS * 1000 + 30_000));
    await worker.call("close");
  } finally {
    rssKb = (await worker.stop()).maxRssKb;
  }
  return { runs, rssKb };
}

export async function breach(size: BreachSize = BREACH_FULL): Promise<BenchResult> {
  const started = Date.now();
  const stream = await side(true, size);
  const poll = await side(false, size);
  const weights = size.weightMinutes > 0 ? { stream: await weight(true, size), poll: await weight(false, size) } : undefined;
  const enforced = size.enforcement ? await enforcementFigures(size.enforcement) : undefined;
  const lat = (r: BreachRun[]) => r.map((x) => x.latencyMs);
  const over = (r: BreachRun[]) => r.map((x) => x.overshootPoints);
  const p50 = median(lat(stream.runs));
  const p99 = percentile(lat(stream.runs), 99);
  return {
    name: "breach",
    setup: `3x BTC long, 5% daily limit, BTC -0.1% every ${size.stepMs} ms, --oracle-interval ${size.oracleIntervalS}; ${size.runs} runs with the price stream, ${size.runs} without`,
    figures: [
      { label: "cross to pause, p50", value: p50, unit: "ms", baseline: median(lat(poll.runs)), target: "< 1000 ms", met: p50 < 1_000 },
      { label: "cross to pause, p99", value: p99, unit: "ms", baseline: percentile(lat(poll.runs), 99), target: "< 3000 ms", met: p99 < 3_000 },
      { label: "overshoot at pause, p50", value: median(over(stream.runs)), unit: "pts", baseline: median(over(poll.runs)) },
      ...(weights
        ? [{ label: `weight per vault per minute (${size.weightVaults} vaults)`, value: weights.stream.perVaultPerMinute, unit: "", baseline: weights.poll.perVaultPerMinute }]
        : []),
      ...(enforced?.figures ?? []),
    ],
    peakRssMb: Math.max(mib(Math.max(stream.rssKb, poll.rssKb)), enforced?.peakRssMb ?? 0),
    notes: [
      `Baseline: the same runs with --no-price-stream (the oracle's ${size.oracleIntervalS}-s poll alone).`,
      `Latency per run with the stream (ms): ${lat(stream.runs).map((x) => fmt(x)).join(", ")}; without: ${lat(poll.runs).map((x) => fmt(x)).join(", ")}.`,
      "Overshoot: the daily drawdown of the reading the contract paused on, minus the 5-point limit.",
      ...(weights
        ? [`Weight: ${size.weightVaults} vaults each holding 0.01 BTC, --oracle-interval 60, the sim's random walk, ${size.weightMinutes} min after the first cycle, ` +
          `from the daemon's metered limiter (tradevault_exchange_weight_spent_total): ${fmt(weights.stream.perVaultPerMinute)} with the stream ` +
          `(${weights.stream.earlyWrites} early writes), ${fmt(weights.poll.perVaultPerMinute)} without. The stream itself costs no weight (one WebSocket subscription).`]
        : []),
      ...(enforced?.notes ?? []),
    ],
    seconds: (Date.now() - started) / 1000,
  };
}
