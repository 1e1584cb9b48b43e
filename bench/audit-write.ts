// audit-write: vault trades recorded per second through the daemon's own write path (appendFills
// inside store.immediate, synchronous=FULL) at several batch sizes (fills per transaction), against
// plain better-sqlite3 inserts of the same rows in one transaction. Runs in a worker process.
import { fmt, mib, type BenchResult, type Figure } from "./lib/report.js";
import { median } from "./lib/stats.js";
import { startWorker, type ProcessUsage } from "./lib/worker-client.js";

export interface AuditWriteSize {
  /** Fills written per measurement for each batch size (batch 1 is fsync-bound: keep its count small). */
  batches: Array<{ batch: number; count: number }>;
  /** Rows of the plain-insert baseline. */
  plain: number;
  runs: number;
}

export const AUDIT_WRITE_FULL: AuditWriteSize = {
  batches: [{ batch: 1, count: 500 }, { batch: 10, count: 5_000 }, { batch: 100, count: 20_000 }, { batch: 1_000, count: 50_000 }],
  plain: 50_000,
  runs: 3,
};

export async function auditWrite(size: AuditWriteSize = AUDIT_WRITE_FULL): Promise<BenchResult> {
  const started = Date.now();
  const worker = await startWorker(new URL("./servers/audit-writer.ts", import.meta.url).pathname);
  const rates = new Map<number, number[]>(size.batches.map((b) => [b.batch, []]));
  const plain: number[] = [];
  let usage: ProcessUsage;
  try {
    await worker.call("appendFills", 1_000, 100); // warm-up: JIT, statement cache
    for (let i = 0; i < size.runs; i++) {
      for (const b of size.batches) rates.get(b.batch)!.push(await worker.call<number>("appendFills", b.count, b.batch));
      plain.push(await worker.call<number>("plain", size.plain));
    }
  } finally {
    usage = await worker.stop();
  }
  const baseline = median(plain);
  const figures: Figure[] = size.batches.map((b) => ({
    label: `appendFills, ${b.batch} per transaction`, value: median(rates.get(b.batch)!), unit: "fills/s", baseline,
  }));
  const best = Math.max(...figures.map((f) => f.value));
  return {
    name: "audit-write",
    setup: `appendFills in store.immediate, synchronous=FULL, fresh database per measurement, ${size.runs} runs; baseline: ${fmt(size.plain)} plain INSERTs in one transaction`,
    figures: [...figures, { label: "best batch / baseline", value: best / baseline, unit: "", ratio: "-", target: "report" }],
    peakRssMb: mib(usage.maxRssKb),
    notes: [
      `One fill per transaction is bound by the fsync of each commit; from about 100 fills per transaction the cost per fill is the repository's own work.`,
    ],
    seconds: (Date.now() - started) / 1000,
  };
}
