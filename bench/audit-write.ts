// audit-write: vault trades recorded per second through the daemon's own write path (appendFills in
// a durable unit of work) at several batch sizes (fills per transaction), each against plain prepared
// INSERTs of the same rows with the same commits: the same rows a transaction, each committed durably
// (synchronous=FULL on SQLite). The runs alternate, so load on a shared machine falls on both sides.
// Then the 100-fill pair again on PostgreSQL (a throwaway server), when one is installed.
import { findPostgres } from "../test/helpers/postgres-server.js";
import { fmt, mib, type BenchResult, type Figure } from "./lib/report.js";
import { median } from "./lib/stats.js";
import { startWorker, type ProcessUsage } from "./lib/worker-client.js";

export interface AuditWriteSize {
  /** Fills written per measurement for each batch size (batch 1 is fsync-bound: keep its count small). */
  batches: Array<{ batch: number; count: number }>;
  /** Fills of the PostgreSQL pair (100 a transaction); 0 leaves PostgreSQL out. */
  postgres: number;
  runs: number;
}

export const AUDIT_WRITE_FULL: AuditWriteSize = {
  batches: [{ batch: 1, count: 500 }, { batch: 10, count: 5_000 }, { batch: 100, count: 20_000 }, { batch: 1_000, count: 50_000 }],
  postgres: 10_000,
  runs: 5,
};

/** The batch size the target is set at (the target: >= 0.8x of plain inserts at 100 fills a transaction). */
const TARGET_BATCH = 100;
const TARGET = 0.8;

type Pair = { daemon: number[]; plain: number[] };

export async function auditWrite(size: AuditWriteSize = AUDIT_WRITE_FULL): Promise<BenchResult> {
  const started = Date.now();
  const worker = await startWorker(new URL("./servers/audit-writer.ts", import.meta.url).pathname);
  const pairs = new Map<number, Pair>(size.batches.map((b) => [b.batch, { daemon: [], plain: [] }]));
  const pg: Pair = { daemon: [], plain: [] };
  const withPostgres = size.postgres > 0 && "bin" in findPostgres();
  let usage: ProcessUsage;
  try {
    await worker.call("appendFills", 1_000, 100); // warm-up: JIT, statement cache
    await worker.call("plain", 1_000, 100);
    for (let i = 0; i < size.runs; i++) {
      for (const b of size.batches) {
        const pair = pairs.get(b.batch)!;
        pair.daemon.push(await worker.call<number>("appendFills", b.count, b.batch));
        pair.plain.push(await worker.call<number>("plain", b.count, b.batch));
      }
    }
    if (withPostgres) {
      await worker.call("appendFills", 500, TARGET_BATCH, "postgres");
      for (let i = 0; i < size.runs; i++) {
        pg.daemon.push(await worker.call<number>("appendFills", size.postgres, TARGET_BATCH, "postgres"));
        pg.plain.push(await worker.call<number>("plain", size.postgres, TARGET_BATCH, "postgres"));
      }
    }
  } finally {
    usage = await worker.stop();
  }
  const figure = (label: string, p: Pair, targeted: boolean): Figure => {
    const value = median(p.daemon);
    const baseline = median(p.plain);
    return { label, value, unit: "fills/s", baseline, ...(targeted ? { target: `>= ${TARGET}x`, met: value / baseline >= TARGET } : {}) };
  };
  const ratios = (p: Pair) => p.daemon.map((d, i) => fmt(d / p.plain[i]!)).join(", ");
  const target = pairs.get(TARGET_BATCH);
  return {
    name: "audit-write",
    setup: `appendFills in store.write (durable), fresh database per measurement, ${size.runs} alternating runs; baseline: plain prepared INSERTs of the same rows, the same number a transaction, each committed durably`,
    figures: [
      ...size.batches.map((b) => figure(`appendFills, ${b.batch} per transaction`, pairs.get(b.batch)!, b.batch === TARGET_BATCH)),
      ...(withPostgres ? [figure(`PostgreSQL: appendFills, ${TARGET_BATCH} per transaction`, pg, false)] : []),
    ],
    peakRssMb: mib(usage.maxRssKb),
    notes: [
      ...(target ? [`Run by run, appendFills / plain at ${TARGET_BATCH} per transaction: ${ratios(target)}.`] : []),
      ...(withPostgres ? [`PostgreSQL, run by run: ${ratios(pg)} (the baseline: one pg client, a named prepared INSERT per row).`] : size.postgres > 0 ? ["PostgreSQL is not installed: its pair was left out."] : []),
      `appendFills writes a batch as multi-row INSERT ... ON CONFLICT DO NOTHING RETURNING id, seq statements compiled once per dialect; per fill it does what the baseline does, plus the skip of known fills and the returned rows. One fill per transaction is bound by the sync of each commit on both sides.`,
    ],
    seconds: (Date.now() - started) / 1000,
  };
}
