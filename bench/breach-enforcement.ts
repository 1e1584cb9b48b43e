// breach, enforcement part: how soon a paused vault's exchange account holds its breach policy, per
// policy, after a 3-minute exchange outage around the breach (from the exchange answering again)
// and with the exchange up (from the pause), at two oracle intervals; and the request weight
// enforcement spends per paused vault per minute (during the outage, and once every vault holds).
// The vaults of one outage run together (`perPolicy` of each policy), so the figures include how they
// share the exchange's request budget.
import { fmt, mib, type Figure } from "./lib/report.js";
import { median } from "./lib/stats.js";
import { startWorker } from "./lib/worker-client.js";
import type { EnforceResult } from "./servers/enforcement-lab.js";

export interface EnforcementSize {
  intervalsS: number[];
  perPolicy: number;
  outageMs: number;
  holdMinutes: number;
}

export const ENFORCEMENT_FULL: EnforcementSize = { intervalsS: [60, 5], perPolicy: 10, outageMs: 180_000, holdMinutes: 6 };

async function once(intervalS: number, size: EnforcementSize): Promise<{ r: EnforceResult; rssKb: number }> {
  const worker = await startWorker(new URL("./servers/enforcement-lab.ts", import.meta.url).pathname);
  try {
    const r = await worker.call<EnforceResult>("run", { oracleIntervalS: intervalS, ...size }, size.outageMs + size.holdMinutes * 60_000 + 20 * 60_000);
    return { r, rssKb: (await worker.stop()).maxRssKb };
  } catch (e) {
    await worker.stop().catch(() => undefined);
    throw e;
  }
}

export async function enforcementFigures(size: EnforcementSize = ENFORCEMENT_FULL): Promise<{ figures: Figure[]; notes: string[]; peakRssMb: number }> {
  const figures: Figure[] = [];
  const notes: string[] = [];
  let rss = 0;
  for (const intervalS of size.intervalsS) {
    const { r, rssKb } = await once(intervalS, size);
    rss = Math.max(rss, rssKb);
    for (const [policy, ms] of Object.entries(r.afterOutage)) {
      const p50 = median(ms);
      const max = Math.max(...ms);
      figures.push({ label: `${policy}: held after an outage, p50 (interval ${intervalS} s)`, value: p50, unit: "ms", target: "< 5000 ms", met: p50 < 5_000 });
      figures.push({ label: `${policy}: held after an outage, max (interval ${intervalS} s)`, value: max, unit: "ms", target: `< ${intervalS * 1000} ms`, met: max < intervalS * 1000 });
    }
    for (const [policy, ms] of Object.entries(r.exchangeUp)) {
      const p50 = median(ms);
      figures.push({ label: `${policy}: pause to held, exchange up, p50 (interval ${intervalS} s)`, value: p50, unit: "ms", target: "< 1000 ms", met: p50 < 1_000 });
    }
    figures.push({ label: `enforcement weight per paused vault per minute, outage (interval ${intervalS} s)`, value: r.outageWeightPerVaultMinute, unit: "" });
    figures.push({ label: `enforcement weight per paused vault per minute, holding (interval ${intervalS} s)`, value: r.holdingWeightPerVaultMinute, unit: "" });
    notes.push(
      `Interval ${intervalS} s, after the outage (ms, per policy): ` +
        Object.entries(r.afterOutage).map(([p, ms]) => `${p} ${ms.map((x) => fmt(x)).join(" ")}`).join("; "),
      `Interval ${intervalS} s, exchange up, pause to held (ms): ` +
        Object.entries(r.exchangeUp).map(([p, ms]) => `${p} ${ms.map((x) => fmt(x)).join(" ")}`).join("; "),
    );
  }
  notes.push(
    `Enforcement: ${size.perPolicy} vaults of each policy breached together while the sim answered HTTP 500 to every action for ` +
      `${size.outageMs / 1000} s, and ${size.perPolicy} more of each breached with the exchange up; weight counted from the sim's request log ` +
      `(openOrders 20, orderStatus 2, an action 1) over the outage and over ${size.holdMinutes} min of holding.`,
  );
  return { figures, notes, peakRssMb: mib(rss) };
}
