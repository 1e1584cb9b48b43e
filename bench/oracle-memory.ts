// How the daemon's memory follows the oracle: a daemon (embedded Anvil and sim, in its own process)
// with `vaults` vaults runs `cycles` oracle cycles back to back, and the process's RSS and V8 heap
// are printed every `every` cycles. Not one of `npm run bench`'s benchmarks: a diagnostic for the
// embedded chain's growth (bench/RESULTS.md, "Findings": oracle-scale, Memory).
//
//   node --import tsx bench/oracle-memory.ts [vaults=100] [cycles=200] [every=20]
import { startWorker } from "./lib/worker-client.js";

const [vaults = 100, cycles = 200, every = 20] = process.argv.slice(2).map(Number);
const worker = await startWorker(new URL("./servers/oracle-lab.ts", import.meta.url).pathname);
try {
  await worker.call("start");
  await worker.call("grow", vaults);
  const sample = async (label: string) => {
    const u = await worker.usage();
    const chain = await worker.call<{ rssKb: number }>("chainMemory");
    console.log(`${label.padEnd(20)} RSS ${String(Math.round(u.rssKb / 1024)).padStart(6)} MiB   heap ${String(Math.round(u.heapKb / 1024)).padStart(5)} MiB   external ${String(Math.round(u.externalKb / 1024)).padStart(5)} MiB   Anvil ${String(Math.round(chain.rssKb / 1024)).padStart(5)} MiB`);
  };
  console.log(`${vaults} vaults, ${cycles} cycles`);
  await sample("vaults added");
  for (let i = 1; i <= cycles; i++) {
    const c = await worker.call<{ ms: number }>("cycle", "daemon");
    if (i % every === 0 || i === cycles) await sample(`cycle ${i} (${(c.ms / 1000).toFixed(2)} s)`);
  }
} finally {
  await worker.stop();
}
