// oracle-scale: wall time of one oracle cycle (daemon.oracle.cycle(): read every active vault on the
// sim, write the readings on-chain in batches, store the events) and gas per vault, at growing vault
// counts on one daemon (embedded defaults: the sim, whose exchange has no weight limiter, and Anvil),
// against the same oracle sending one update transaction per vault. Memory is the daemon process's
// peak plus the embedded Anvil's (a child process) at its largest.
import { fmt, mib, type BenchResult, type Figure } from "./lib/report.js";
import { median } from "./lib/stats.js";
import { startWorker, type ProcessUsage } from "./lib/worker-client.js";
import type { CycleCost } from "./servers/oracle-lab.js";

export interface OracleScaleSize {
  vaults: number[];
  runs: number;
}

export const ORACLE_SCALE_FULL: OracleScaleSize = { vaults: [10, 100, 1000], runs: 3 };

interface Step {
  vaults: number;
  growSeconds: number;
  cycles: CycleCost[];
  unbatched: CycleCost;
  /** The worker's RSS (MiB) after adding the vaults, after the daemon's cycles, after the baseline. */
  rss: { grown: number; cycled: number; after: number };
  /** The embedded Anvil's RSS and peak (MiB) after the daemon's cycles. */
  chain: { rss: number; peak: number };
}

export async function oracleScale(size: OracleScaleSize = ORACLE_SCALE_FULL): Promise<BenchResult> {
  const started = Date.now();
  const worker = await startWorker(new URL("./servers/oracle-lab.ts", import.meta.url).pathname);
  const steps: Step[] = [];
  const rss: number[] = [];
  let chainPeak = 0;
  let usage: ProcessUsage;
  try {
    await worker.call("start");
    for (const n of size.vaults) {
      const growSeconds = await worker.call<number>("grow", n);
      const grown = mib((await worker.usage()).rssKb);
      const cycles: CycleCost[] = [];
      for (let i = 0; i < size.runs; i++) cycles.push(await worker.call<CycleCost>("cycle", "daemon"));
      const cycled = mib((await worker.usage()).rssKb);
      const anvil = await worker.call<{ rssKb: number; peakKb: number }>("chainMemory");
      const chain = { rss: mib(anvil.rssKb), peak: mib(anvil.peakKb) };
      const unbatched = await worker.call<CycleCost>("cycle", "unbatched");
      steps.push({ vaults: n, growSeconds, cycles, unbatched, chain, rss: { grown, cycled, after: mib((await worker.usage()).rssKb) } });
      rss.push(mib((await worker.usage()).maxRssKb));
    }
    chainPeak = mib((await worker.call<{ peakKb: number }>("chainMemory")).peakKb);
  } finally {
    usage = await worker.stop();
  }
  const figures: Figure[] = [];
  const notes: string[] = [];
  for (const s of steps) {
    const ms = median(s.cycles.map((c) => c.ms));
    const gasPerVault = median(s.cycles.map((c) => c.gas / c.vaults));
    const unbatchedGas = s.unbatched.gas / s.unbatched.vaults;
    const last = s.vaults === size.vaults[size.vaults.length - 1];
    figures.push({
      label: `cycle, ${s.vaults} vaults`, value: ms / 1000, unit: "s", baseline: s.unbatched.ms / 1000,
      ...(last ? { target: "< 3 s", met: ms < 3_000 } : {}),
    });
    figures.push({
      label: `gas per vault, ${s.vaults} vaults`, value: gasPerVault, unit: "gas", baseline: unbatchedGas,
      target: "< 0.5x baseline", met: gasPerVault < 0.5 * unbatchedGas,
    });
    const applied = s.cycles.every((c) => c.applied === c.vaults) && s.unbatched.applied === s.unbatched.vaults;
    notes.push(
      `${s.vaults} vaults: created in ${fmt(s.growSeconds)} s; cycles ${s.cycles.map((c) => `${fmt(c.ms / 1000)} s`).join(", ")} ` +
        `(${s.cycles[0]!.transactions} transaction(s) each); unbatched ${fmt(s.unbatched.ms / 1000)} s in ${s.unbatched.transactions} transactions; ` +
        `exchange reads in flight ${s.cycles.map((c) => `${fmt(c.readMs / 1000)} s (${c.reads} reads)`).join(", ")}, the rest (the batched write, its receipt indexed into events, the database) ` +
        `${s.cycles.map((c) => `${fmt((c.ms - c.readMs) / 1000)} s`).join(", ")}; ` +
        `the daemon process's CPU per cycle ${s.cycles.map((c) => `${fmt(c.cpuMs / 1000)} s`).join(", ")}; ` +
        `every reading applied: ${applied ? "yes" : "NO"}; daemon events other than chain events: ${s.cycles.reduce((n, c) => n + c.otherEvents, 0)}; ` +
        `RSS ${s.rss.grown} MiB after adding the vaults, ${s.rss.cycled} MiB after the daemon's cycles, ${s.rss.after} MiB after the baseline's; ` +
        `peak so far ${rss[steps.indexOf(s)]} MiB; Anvil ${s.chain.rss} MiB (peak ${s.chain.peak} MiB).`,
    );
  }
  const peak = mib(usage.maxRssKb) + chainPeak;
  figures.push({ label: "peak RSS, daemon + embedded Anvil", value: peak, unit: "MiB", target: "< 1024 MiB", met: peak < 1024 });
  notes.push("The first cycle after vaults are added reads each new vault's ledger and fills too; later cycles read account state only.");
  const top = steps[steps.length - 1];
  if (top) {
    const reads = median(top.cycles.map((c) => c.readMs));
    const rest = median(top.cycles.map((c) => c.ms - c.readMs));
    notes.push(
      `Slowest step at ${top.vaults} vaults: ${reads >= rest ? `the exchange reads, ${fmt(reads / 1000)} s of the cycle (one account-state read per vault, in turn, from the embedded sim on the daemon's own event loop)` : `the chain write and its indexing, ${fmt(rest / 1000)} s of the cycle (the reads took ${fmt(reads / 1000)} s)`}.`,
      `Peak RSS: the daemon process ${mib(usage.maxRssKb)} MiB, the embedded Anvil ${chainPeak} MiB, together ${mib(usage.maxRssKb) + chainPeak} MiB (target < 1 GB).`,
    );
  }
  return {
    name: "oracle-scale",
    setup: `daemon.oracle.cycle() at ${size.vaults.join(", ")} active vaults, ${size.runs} cycles each; baseline: one update transaction per vault`,
    figures,
    peakRssMb: peak,
    notes,
    seconds: (Date.now() - started) / 1000,
  };
}
