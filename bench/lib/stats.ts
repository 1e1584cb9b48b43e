// Small statistics over samples: medians of runs, percentiles of latencies (nearest rank).

export function percentile(samples: number[], p: number): number {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

export const median = (values: number[]): number => {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

export interface LatencySummary {
  p50: number;
  p99: number;
  count: number;
}

/** Latencies in milliseconds. */
export const summarize = (ms: number[]): LatencySummary => ({ p50: percentile(ms, 50), p99: percentile(ms, 99), count: ms.length });

/** The median, figure by figure, of several runs' summaries. */
export function medianOf<T extends Record<string, number>>(runs: T[]): T {
  const out: Record<string, number> = {};
  for (const key of Object.keys(runs[0] ?? {})) out[key] = median(runs.map((r) => r[key]!));
  return out as T;
}

/** Milliseconds since `start` (a process.hrtime.bigint() reading). */
export const msSince = (start: bigint): number => Number(process.hrtime.bigint() - start) / 1e6;
