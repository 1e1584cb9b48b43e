// trade-history: p50/p99 of GET /api/vaults/:address/trades (limit 100) for the first page, a
// date-filtered page and a deep page (offset 90% of the trades), one request at a time, with
// `small` trades (the baseline) and again after the same vault grew to `large` trades.
import { httpClient, timeSequential, type Client } from "./lib/load.js";
import { fmt, mib, type BenchResult, type Figure } from "./lib/report.js";
import { median, summarize, type LatencySummary } from "./lib/stats.js";
import { startWorker, type ProcessUsage } from "./lib/worker-client.js";
import { T0, type Archive } from "./servers/trade-archive.js";

export interface TradeHistorySize {
  small: number;
  large: number;
  requests: number;
  runs: number;
  warmup: number;
}

export const TRADE_HISTORY_FULL: TradeHistorySize = { small: 10_000, large: 1_000_000, requests: 300, runs: 3, warmup: 30 };

type Page = "first page" | "date-filtered page" | "deep page";

interface PageSpec {
  path: string;
  /** Trades the page must hold. */
  rows: number;
}

/** The three pages for a vault with `n` trades (one a second from T0). */
function pages(vault: string, n: number): Record<Page, PageSpec> {
  const at = (seq: number) => Math.floor((T0 + (seq - 1) * 1000) / 1000);
  const base = `/api/vaults/${vault}/trades?limit=100`;
  const [from, to, offset] = [Math.floor(n * 0.4), Math.floor(n * 0.6), Math.floor(n * 0.9)];
  return {
    "first page": { path: base, rows: Math.min(100, n) },
    // The middle fifth of the history, by date: two index probes on (vault, time_ms, seq), then a seq range.
    "date-filtered page": { path: `${base}&startDate=${at(from)}&endDate=${at(to)}`, rows: Math.min(100, to - from + 1) },
    "deep page": { path: `${base}&offset=${offset}`, rows: Math.min(100, n - offset) },
  };
}

async function measure(client: Client, token: string, paths: Record<Page, PageSpec>, size: TradeHistorySize) {
  const runs: Record<Page, LatencySummary[]> = { "first page": [], "date-filtered page": [], "deep page": [] };
  const get = ({ path, rows }: PageSpec) => async () => {
    const r = await client.send("GET", path, undefined, { Authorization: `Bearer ${token}` });
    if (r.status !== 200 || r.body.data.trades.length !== rows) throw new Error(`GET ${path}: ${r.status}, ${r.body?.data?.trades?.length} trades, not ${rows}`);
  };
  for (const page of Object.keys(paths) as Page[]) await timeSequential(get(paths[page]), 0, size.warmup);
  for (let i = 0; i < size.runs; i++) {
    for (const page of Object.keys(paths) as Page[]) runs[page].push(summarize(await timeSequential(get(paths[page]), size.requests)));
  }
  const out = {} as Record<Page, { p50: number; p99: number }>;
  for (const page of Object.keys(runs) as Page[]) out[page] = { p50: median(runs[page].map((r) => r.p50)), p99: median(runs[page].map((r) => r.p99)) };
  return out;
}

export async function tradeHistory(size: TradeHistorySize = TRADE_HISTORY_FULL): Promise<BenchResult> {
  const started = Date.now();
  const worker = await startWorker(new URL("./servers/trade-archive.ts", import.meta.url).pathname);
  let usage: ProcessUsage;
  let small: Awaited<ReturnType<typeof measure>>;
  let large: Awaited<ReturnType<typeof measure>>;
  let fillSeconds: number;
  try {
    const a = await worker.call<Archive>("start");
    const client = httpClient(a.url);
    await worker.call("fill", size.small);
    small = await measure(client, a.token, pages(a.vault, size.small), size);
    fillSeconds = await worker.call<number>("fill", size.large);
    large = await measure(client, a.token, pages(a.vault, size.large), size);
    client.close();
  } finally {
    usage = await worker.stop();
  }
  const figures: Figure[] = [];
  for (const page of Object.keys(large) as Page[]) {
    figures.push({ label: `${page} p50`, value: large[page].p50, unit: "ms", baseline: small[page].p50, target: "< 5 ms", met: large[page].p50 < 5 });
    figures.push({ label: `${page} p99`, value: large[page].p99, unit: "ms", baseline: small[page].p99 });
  }
  const growth = Math.max(...(Object.keys(large) as Page[]).map((p) => large[p].p50 / small[p].p50));
  return {
    name: "trade-history",
    setup: `GET /api/vaults/:address/trades?limit=100, ${fmt(size.large)} trades vs ${fmt(size.small)} (same vault, grown), ${size.runs} x ${size.requests} requests per page`,
    figures,
    peakRssMb: mib(usage.maxRssKb),
    notes: [
      `The table grew ${fmt(size.large / size.small)}x; the slowest page's p50 grew ${fmt(growth)}x` +
        (growth < 2 ? " (no page scans the table)." : " (a page is scanning: investigate)."),
      `Deep page: offset ${fmt(Math.floor(size.large * 0.9))} (baseline ${fmt(Math.floor(size.small * 0.9))}); date filter: the middle fifth of the history.`,
      `Filling ${fmt(size.large - size.small)} trades by bulk insert (same schema and indexes, 50,000 rows per transaction) took ${fmt(fillSeconds)} s.`,
    ],
    seconds: (Date.now() - started) / 1000,
  };
}
