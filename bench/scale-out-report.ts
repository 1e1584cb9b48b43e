// scale-out's figures and notes from what its parts measured: medians over the runs, each run's
// values in the notes (the spread), and what the figures mean.
import { fmt, mib, type BenchResult, type Figure } from "./lib/report.js";
import { median, percentile } from "./lib/stats.js";
import { describeRun, type CoverageRun } from "./scale-out-coverage.js";
import type { FailoverKill } from "./scale-out-failover.js";
import type { OrdersByStore } from "./scale-out-orders.js";
import { failedOf, twoRps, type ReadsRun } from "./scale-out-reads.js";
import type { ScaleOutSize } from "./scale-out.js";
import type { WritesRun } from "./scale-out-writes.js";

export interface ClusterFigures {
  coverage: CoverageRun[];
  kills: FailoverKill[];
  reads: ReadsRun[];
  writes: WritesRun[];
  peakRssKb: number;
  /** Seconds each part took. */
  phases: Record<string, number>;
}

interface Inputs {
  size: ScaleOutSize;
  cluster?: ClusterFigures;
  orders: OrdersByStore;
  /** Why the PostgreSQL figures were not measured. */
  skipped?: string;
  phases: Record<string, number>;
  seconds: number;
}

const secs = (ms: number) => ms / 1000;

function coverageFigures(runs: CoverageRun[], size: ScaleOutSize): Figure[] {
  const of = (n: number) => runs.filter((r) => r.daemons === n);
  const per = (n: number, key: "open" | "budget") => median(of(n).map((r) => r[key].perInterval));
  const cycle = (n: number, key: "open" | "budget") => secs(median(of(n).map((r) => r[key].cycleMs)));
  const counts = [...new Set(runs.map((r) => r.daemons))].sort((a, b) => a - b);
  const most = counts[counts.length - 1]!;
  const daemons = (n: number) => `${n} daemon${n > 1 ? "s" : ""}`;
  const read = (n: number): Figure => {
    const label = `vaults read per ${size.intervalS}-s interval (of ${size.vaults}), ${daemons(n)} with budgets`;
    // Two daemons against one: whether the budgets add up. The most daemons against no budget: whether they still limit.
    if (n === 2) return { label: `${label} (baseline: 1 daemon's)`, value: per(2, "budget"), unit: "", baseline: per(1, "budget"), target: ">= 1.8x", met: per(2, "budget") >= 1.8 * per(1, "budget") };
    const limits = n === most && n > 1 ? { target: ">= 0.9x", met: per(n, "budget") >= 0.9 * per(n, "open") } : {};
    return { label: `${label} (baseline: no budget)`, value: per(n, "budget"), unit: "", baseline: per(n, "open"), ...limits };
  };
  return [
    ...counts.map(read),
    ...counts.map((n): Figure => ({
      label: `cycle time (between two readings of a vault), ${daemons(n)} with budgets (baseline: no budget)`, value: cycle(n, "budget"), unit: "s", baseline: cycle(n, "open"),
    })),
  ];
}

function clusterFigures(c: ClusterFigures, size: ScaleOutSize): Figure[] {
  const failovers = c.kills.filter((k) => k.budget === "full").map((k) => secs(k.failoverMs));
  const spent = c.kills.filter((k) => k.budget === "drained").map((k) => secs(k.failoverMs));
  const two = 2 * size.intervalS;
  const failed = failedOf(c.reads);
  const ordersPerS = (n: number) => median(c.writes.filter((w) => w.daemons === n).map((w) => w.ordersPerS));
  const writeFailed = c.writes.reduce((sum, w) => sum + w.failed, 0);
  return [
    ...coverageFigures(c.coverage, size),
    { label: `failover, kill to a survivor's first written reading, p50 of ${failovers.length} kills`, value: median(failovers), unit: "s", target: `< ${two} s (two intervals)`, met: median(failovers) < two },
    { label: "failover, max", value: Math.max(...failovers), unit: "s", target: `< ${two} s`, met: Math.max(...failovers) < two },
    ...(spent.length > 0
      ? [{ label: `failover with the survivors' budgets spent, max of ${spent.length} kills`, value: Math.max(...spent), unit: "s", target: "report" }]
      : []),
    {
      label: `GET /api/vaults through two daemons (${size.reads.connections} connections)`, value: median(c.reads.map(twoRps)), unit: "req/s",
      baseline: median(c.reads.map((r) => r.one.rps)), target: "report", met: failed === 0 ? undefined : false,
    },
    ...[...new Set(c.writes.map((w) => w.daemons))].sort((a, b) => a - b).map((n): Figure => ({
      label: `orders a second through ${n} daemon${n > 1 ? "s" : ""} at once, ${size.writes.connections} traders each${n > 1 ? " (baseline: 1 daemon)" : ""}`,
      value: ordersPerS(n), unit: "/s", ...(n > 1 ? { baseline: ordersPerS(1) } : {}), target: "report", met: writeFailed === 0 ? undefined : false,
    })),
  ];
}

function orderFigures(o: OrdersByStore): Figure[] {
  const p = (runs: typeof o.direct, key: "p50" | "p99") => median(runs.map((r) => r[key]));
  const overhead = (runs: typeof o.direct) => p(runs, "p50") - p(o.direct, "p50");
  if (o.postgres.length === 0) {
    return [
      { label: "order path p50, SQLite daemon", value: p(o.sqlite, "p50"), unit: "ms", baseline: p(o.direct, "p50") },
      { label: "order path p99, SQLite daemon", value: p(o.sqlite, "p99"), unit: "ms", baseline: p(o.direct, "p99") },
    ];
  }
  return [
    { label: "order path p50, PostgreSQL daemon (baseline: SQLite daemon)", value: p(o.postgres, "p50"), unit: "ms", baseline: p(o.sqlite, "p50") },
    { label: "order path p99, PostgreSQL daemon (baseline: SQLite daemon)", value: p(o.postgres, "p99"), unit: "ms", baseline: p(o.sqlite, "p99") },
    { label: "order path overhead at p50 over the direct order, PostgreSQL (baseline: SQLite)", value: overhead(o.postgres), unit: "ms", baseline: overhead(o.sqlite) },
  ];
}

export function scaleOutResult(i: Inputs): BenchResult {
  const { size, cluster, orders } = i;
  return {
    name: "scale-out",
    setup: `${size.vaults} vaults, --oracle-interval ${size.intervalS}, 1-${size.daemons} built daemons on one PostgreSQL, one Anvil, one --sim-only; ` +
      `daemons ${size.coverage.order.join(", ")} in turn, ${size.coverage.windowS} s windows without and with budgets, ${size.kills.full} + ${size.kills.spent} (budgets spent) kills, reads ${size.reads.runs} x ${size.reads.durationS} s, writes ${size.writes.runs} x ${size.writes.durationS} s, orders ${size.orders.runs} x ${size.orders.orders}`,
    figures: [...(cluster ? clusterFigures(cluster, size) : []), ...orderFigures(orders)],
    peakRssMb: mib(Math.max(cluster?.peakRssKb ?? 0, orders.peakRssKb)),
    notes: [
      ...(i.skipped ? [`PostgreSQL figures skipped: ${i.skipped}. Only the order path on a SQLite daemon (with --rpc-url and --exchange-url) was measured, against the direct order.`] : []),
      ...(cluster ? clusterNotes(cluster, size) : []),
      ...orderNotes(orders),
      `Time per part (s): ${Object.entries(i.phases).map(([k, v]) => `${k} ${fmt(v)}`).join(", ")}.`,
    ],
    seconds: i.seconds,
  };
}

function clusterNotes(c: ClusterFigures, size: ScaleOutSize): string[] {
  const byKill = c.kills.map((k) => `${fmt(secs(k.failoverMs))}${k.sender ? " (sender)" : ""}${k.budget === "drained" ? " (budgets spent)" : ""}`).join(", ");
  const waited = c.kills.map((k) => fmt(secs(k.survivorsWaitedMs))).join(", ");
  const readBy = c.kills.map((k) => fmt(secs(k.readByMs))).join(", ");
  const vaultMs = c.kills.filter((k) => k.budget === "full").flatMap((k) => k.perVaultMs);
  const reads = c.reads.map((r) => `${fmt(r.one.rps)} -> ${fmt(twoRps(r))}`).join(", ");
  const p99 = (r: ReadsRun) => Math.max(r.two[0].p99, r.two[1].p99);
  return [
    "The exchange's per-IP budget, simulated per daemon: on Hyperliquid each daemon's box has its own IP and 1200 weight a minute, which its own limiter spends. " +
      "Against a sim (--exchange-url) the daemon's limiter is off (daemon/venue.ts: the sim has no budget), so each daemon reaches the sim through a proxy of its own " +
      "(bench/servers/budget-proxy.ts) that holds every request until the daemon's limiter (exchange/weight-limiter.ts, HYPERLIQUID_WEIGHT) has its Hyperliquid weight: " +
      "info reads at background priority (never under the 200 kept for trading), actions at trading priority.",
    `Capacity per daemon: 1200 weight a minute is 10 account reads (weight 2) a second, ${fmt(20 * size.intervalS / 2)} vaults per ${size.intervalS}-s interval, ` +
      "less the ledger and fills a vault is read for every 5 minutes (40 weight: 17.6 vaults at 2 s over a long run; the coverage runs take less than 5 minutes " +
      "from the daemons' start, and a daemon's first, cold read of a vault falls in the set-up with the budget open). After each change of daemons, the vaults " +
      `are shared out again and read twice with no budget, a ${size.coverage.windowS}-s window is measured (the baseline), then every proxy's bucket is drained ` +
      "(to the 200 reserve, as after running at capacity) and, once every vault has been read under it, the same window again.",
    "When a daemon holds more vaults than its budget reads in an interval, the oracle skips none: each cycle reads every vault it holds one at a time, each read " +
      "waiting for its weight, so the cycle stretches, and the next starts an interval after it ended (cycle time = interval + the cycle's duration). " +
      "The warning it logs (more active vaults than the budget reads each interval) is only for the real venue and uses oracleCapacity (vaults/vault-balances.ts: 2 weight a cycle, plus the ledger and the fills, 20 each, once in 5 minutes): 17 vaults at 2 s.",
    `Coverage runs in order (vaults read per interval; cycle time p50 and the longest gap; weight each daemon spent a minute; its requests' waits for weight summed, as a share of the window: over 100% when reads overlap, eight at a time): ${c.coverage.map(describeRun).join("; ")}.`,
    `Failover per kill (s, in order; "sender" when the killed daemon also sent the operator's transactions): ${byKill}. Per vault over the kills with full buckets: p50 ${fmt(secs(median(vaultMs)))} s, ` +
      `p99 ${fmt(secs(percentile(vaultMs, 99)))} s. The takeover's readings were taken by (s; each reading's observedAt, whole seconds rounded up, is stamped when the account's state answered): ${readBy}. Survivors' requests waited for budget meanwhile (s, summed): ${waited}. ` +
      "What the time is made of: the victim's presence mark (a PostgreSQL session lock, db/presence.ts) drops when its process dies; each survivor reaps it " +
      "at its next lease round (every interval/4) and takes its share of the freed leases; the vaults taken are read at once (fresh, at trading priority, " +
      "a ledger read included: 22 weight each, eight reads in flight) and written in one updateBalances batch (vaults.takeOver), handed to the sender " +
      "through the database unless the survivor sends (a new sender is promoted in the same round when the victim sent); on an external chain the sender " +
      "looks for receipts every second (tx-sender pollMs). The budget proxy serves every info read at background priority in arrival order (it cannot " +
      "tell the takeover's fresh reads, which the daemon's own limiter would let go first on the real venue, from the cycle's), so with spent budgets the " +
      "takeover's reads queue behind the survivors' cycles. Written = the BalanceUpdated event stored, seen by a 50-ms poll of the database.",
    `Reads: one daemon -> two daemons, req/s per run: ${reads}; ${failedOf(c.reads)} failed responses. p99 one daemon ${c.reads.map((r) => fmt(r.one.p99)).join(", ")} ms, ` +
      `two (the worse half) ${c.reads.map((r) => fmt(p99(r))).join(", ")} ms. On this 2-core machine the two daemons, PostgreSQL, the sim, Anvil and the load generator ` +
      "share the 2 cores: two daemons cannot get twice the CPU, so the ratio says what a second daemon gives on one small box, not on two boxes.",
  ];
}

function orderNotes(o: OrdersByStore): string[] {
  const list = (runs: typeof o.direct) => runs.map((r) => `${fmt(r.p50)}/${fmt(r.p99)}`).join(", ");
  return [
    `Order path per run (p50/p99 ms): direct ${list(o.direct)}; SQLite daemon ${list(o.sqlite)}` + (o.postgres.length ? `; PostgreSQL daemon ${list(o.postgres)}.` : "."),
    "Order path: the same resting order as order-path, the legs taking turns order by order; both daemons reach the same --sim-only and Anvil; " +
      "the PostgreSQL daemon is alone on its own database (it still beats its heart and renews the sender's lease). The direct order is signed here and sent straight to the sim.",
  ];
}
