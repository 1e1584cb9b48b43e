// scale-out, coverage: how many vaults 1, 2 and 3 daemons read per oracle interval, and how long a
// vault waits between two readings (the cycle time), each daemon with an exchange budget of its own
// (servers/budget-proxy.ts), against the same daemons with no budget (the baseline). Daemons are
// added and stopped in the order given (1, 2, 3, 2, 1: drift on the machine lands on both ends);
// after each change the budget is open while the vaults are shared out again and read twice (a
// daemon's first read of a vault also reads its ledger and fills, 42 weight), the open window is
// measured, then the budget is set to a drained bucket (as after running at capacity) and, once
// every vault has been read under it, the budget window is measured.
import { fmt, progress } from "./lib/report.js";
import { median } from "./lib/stats.js";
import type { BalanceWatch } from "./lib/balance-watch.js";
import type { ClusterRig } from "./lib/cluster-rig.js";
import { waitReadings, waitShared } from "./lib/cluster-waits.js";
import type { ProxyStats } from "./servers/budget-proxy.js";

export interface CoverageSize {
  /** Daemon counts in turn. */
  order: number[];
  windowS: number;
}

export interface Rhythm {
  /** Readings stored per oracle interval, all daemons together. */
  perInterval: number;
  /** Median time between two readings of a vault, ms. */
  cycleMs: number;
  /** Longest time between two readings of a vault in the window, ms. */
  maxGapMs: number;
  /** Vaults read fewer than twice in the window (they add nothing to the rate: a window shorter than the cycle). */
  short: number;
}

export interface CoverageRun {
  daemons: number;
  open: Rhythm;
  budget: Rhythm & {
    /** Weight each daemon spent per minute. */
    weightPerMinute: number[];
    /** Share of the window each daemon's requests spent waiting for weight. */
    waiting: number[];
    /** Each daemon's last oracle cycle at the window's end, ms (its /healthz). */
    durationsMs: number[];
  };
}

/**
 * Readings per interval, and the gaps between consecutive readings of each vault. The rate is each
 * vault's own (readings after its first, over the time from its first to its last), summed: a count
 * over the window would swing by a whole batch with where the window's edges fall.
 */
export function readingRhythm(arrivals: Array<{ vault: string; seenMs: number }>, vaults: number, intervalS: number): Rhythm {
  const byVault = new Map<string, number[]>();
  for (const a of arrivals) byVault.set(a.vault, [...(byVault.get(a.vault) ?? []), a.seenMs]);
  const times = [...byVault.values()].map((t) => t.sort((a, b) => a - b));
  const gaps = times.flatMap((t) => t.slice(1).map((x, i) => x - t[i]!));
  const perMs = times.reduce((sum, t) => sum + (t.length > 1 ? (t.length - 1) / (t[t.length - 1]! - t[0]!) : 0), 0);
  return {
    perInterval: perMs * intervalS * 1000, cycleMs: median(gaps), maxGapMs: gaps.length > 0 ? Math.max(...gaps) : NaN,
    short: vaults - times.filter((t) => t.length > 1).length,
  };
}

async function lastCycleMs(url: string): Promise<number> {
  const health = (await (await fetch(`${url}/healthz`)).json()) as { data: { oracle: { durationMs: number | null } } };
  return health.data.oracle.durationMs ?? NaN;
}

async function window(watch: BalanceWatch, vaults: number, windowS: number, intervalS: number): Promise<Rhythm> {
  const from = Date.now();
  await new Promise((r) => setTimeout(r, windowS * 1000));
  return readingRhythm(watch.since(from, Date.now()), vaults, intervalS);
}

async function measure(rig: ClusterRig, watch: BalanceWatch, vaults: string[], live: number[], intervalS: number, windowS: number): Promise<CoverageRun> {
  await rig.proxies.call("budget", "open");
  await waitReadings(watch, vaults, await waitShared(rig, live, vaults.length), 2);
  const open = await window(watch, vaults.length, windowS, intervalS);
  await rig.proxies.call("budget", "drained");
  await waitReadings(watch, vaults, Date.now(), 1);
  const before = await rig.proxies.call<ProxyStats[]>("stats");
  const from = Date.now();
  const rhythm = await window(watch, vaults.length, windowS, intervalS);
  const ms = Date.now() - from;
  const after = await rig.proxies.call<ProxyStats[]>("stats");
  return {
    daemons: live.length, open,
    budget: {
      ...rhythm,
      weightPerMinute: live.map((i) => ((after[i]!.weight - before[i]!.weight) * 60_000) / ms),
      waiting: live.map((i) => (after[i]!.waitedMs - before[i]!.waitedMs) / ms),
      durationsMs: await Promise.all(live.map((i) => lastCycleMs(rig.daemons[i]!.url))),
    },
  };
}

/** One run per entry of `size.order`, daemons added or stopped (the highest-numbered first) between them. */
export async function coverage(rig: ClusterRig, watch: BalanceWatch, vaults: string[], intervalS: number, size: CoverageSize): Promise<CoverageRun[]> {
  const live: number[] = [];
  const runs: CoverageRun[] = [];
  try {
    for (const n of size.order) {
      await rig.proxies.call("budget", "open");
      while (live.length < n) await rig.start(live.push(live.length) - 1);
      while (live.length > n) await rig.stop(live.pop()!);
      progress(`coverage with ${n} daemon(s)`);
      runs.push(await measure(rig, watch, vaults, [...live], intervalS, size.windowS));
      progress(describeRun(runs[runs.length - 1]!));
    }
  } finally {
    await rig.stopAll();
  }
  return runs;
}

export function describeRun(r: CoverageRun): string {
  const b = r.budget;
  const list = (xs: number[], f: (x: number) => string) => xs.map(f).join("/");
  return `${r.daemons}: ${fmt(b.perInterval)} per interval (no budget ${fmt(r.open.perInterval)}), cycle ${fmt(b.cycleMs / 1000)} s ` +
    `(no budget ${fmt(r.open.cycleMs / 1000)} s; longest gap ${fmt(b.maxGapMs / 1000)} s), weight ${list(b.weightPerMinute, (w) => fmt(w))} a minute, ` +
    `waiting ${list(b.waiting, (w) => `${Math.round(w * 100)}%`)}, last cycle took ${list(b.durationsMs, (d) => fmt(d / 1000))} s` +
    (b.short + r.open.short > 0 ? `, ${b.short} (no budget: ${r.open.short}) vaults read fewer than twice in the window` : "");
}
