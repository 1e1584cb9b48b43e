// soak: the embedded chain over a long run. N vaults, --oracle-interval 1, oracle cycles back to back;
// the daemon's and Anvil's RSS, the database (WAL checkpointed) and the newest snapshot every `every`
// cycles, and the restart time at cycle 100 and at the end. Not a test: figures to read.
import { fmt, mib, type BenchResult } from "./lib/report.js";
import { startWorker } from "./lib/worker-client.js";
import type { SoakSample } from "./servers/soak-lab.js";

export interface SoakSize {
  vaults: number;
  cycles: number;
  every: number;
}

export const SOAK_FULL: SoakSize = { vaults: 100, cycles: 3_600, every: 300 };

export async function soak(size: SoakSize = SOAK_FULL): Promise<BenchResult> {
  const started = Date.now();
  const worker = await startWorker(new URL("./servers/soak-lab.ts", import.meta.url).pathname);
  const samples: SoakSample[] = [];
  let restartEarlyMs = 0;
  let restartEndMs = 0;
  let rssKb = 0;
  try {
    await worker.call("start", size.vaults);
    const early = Math.min(100, size.cycles);
    samples.push(await worker.call<SoakSample>("run", early, 30 * 60_000));
    restartEarlyMs = await worker.call<number>("restart");
    for (let done = early; done < size.cycles; done += size.every) {
      samples.push(await worker.call<SoakSample>("run", Math.min(size.every, size.cycles - done), 60 * 60_000));
    }
    restartEndMs = await worker.call<number>("restart");
    await worker.call("close");
  } finally {
    rssKb = (await worker.stop()).maxRssKb;
  }
  const total = (s: SoakSample) => s.daemonRssMb + s.anvilRssMb;
  const from = samples.find((s) => s.cycle >= Math.min(600, size.cycles)) ?? samples[0]!;
  const last = samples.at(-1)!;
  const growth = total(last) - total(from);
  const dbPerVaultCycle = (last.dbBytes - samples[0]!.dbBytes) / Math.max(1, (last.cycle - samples[0]!.cycle) * size.vaults);
  const cycleMax = Math.max(...samples.map((s) => s.cycleMsMax));
  const over1s = samples.reduce((n, s) => n + s.cyclesOver1s, 0);
  return {
    name: "soak",
    setup: `${size.vaults} vaults, oracle cycles back to back (--oracle-interval 1), ${size.cycles} cycles, sampled every ${size.every}`,
    figures: [
      { label: `RSS growth daemon + Anvil, cycle ${from.cycle} to ${last.cycle}`, value: growth, unit: "MB", target: "< 50 MB", met: growth < 50 },
      { label: "restart to /healthz, at the end", value: restartEndMs, unit: "ms", baseline: restartEarlyMs, target: "< 5000 ms", met: restartEndMs < 5_000 },
      { label: "slowest cycle", value: cycleMax, unit: "ms", target: "< 1000 ms", met: cycleMax < 1_000 },
      { label: "cycles of a second or more", value: over1s, unit: "", target: "0", met: over1s === 0 },
      { label: "database growth per vault per cycle", value: dbPerVaultCycle, unit: "B", target: "< 300 B", met: dbPerVaultCycle < 300 },
    ],
    peakRssMb: mib(rssKb),
    notes: [
      `Baseline of the restart: the same restart at cycle ${samples[0]!.cycle}.`,
      ...samples.map((s) => `cycle ${s.cycle}: daemon ${fmt(s.daemonRssMb)} MB + Anvil ${fmt(s.anvilRssMb)} MB RSS, height ${s.height}, database ${fmt(s.dbBytes / 1e6)} MB, snapshot ${fmt(s.snapshotBytes / 1e3)} kB, cycle median ${fmt(s.cycleMsMedian)} ms, p99 ${fmt(s.cycleMsP99)} ms, max ${fmt(s.cycleMsMax)} ms (${s.cyclesOver1s} of a second or more)`),
    ],
    seconds: (Date.now() - started) / 1000,
  };
}
