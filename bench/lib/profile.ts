// With BENCH_PROFILE=<dir> set, a benchmark wraps one timed stretch of the server under test in the
// worker's CPU profiler and writes <dir>/<name>.cpuprofile; summarise it with
// `node --import tsx bench/lib/cpuprofile.ts <file>`. Unset, it only runs the stretch.
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Worker } from "./worker-client.js";

export async function profiled<T>(worker: Worker, name: string, stretch: () => Promise<T>): Promise<T> {
  const dir = process.env.BENCH_PROFILE;
  if (!dir) return stretch();
  await worker.profileStart();
  try {
    return await stretch();
  } finally {
    mkdirSync(resolve(dir), { recursive: true });
    const file = join(resolve(dir), `${name}.cpuprofile`);
    await worker.profileStop(file);
    console.log(`  CPU profile of ${name}: ${file}`);
  }
}
