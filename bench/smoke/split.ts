// The smoke test of the benchmarks, shared by bench/smoke/smoke*.test.ts: the slow benchmarks run in
// files of their own so the test runner (several files at a time) spreads them over both cores; every
// other benchmark runs in smoke.test.ts, so a new one is smoke-tested without anyone listing it.
import type { Test } from "uvu";
import * as assert from "uvu/assert";
import { BENCHMARKS, type Benchmark } from "../benchmarks.js";
import { markdownTable, textTable } from "../lib/report.js";

/** Benchmarks smoke-tested in a file of their own, by that file's name. */
export const SPLIT: Record<string, string[]> = {
  "smoke-reads.test.ts": ["http-read", "http-read-shared", "login", "login-shared", "oracle-scale-shared"],
  "smoke-breach.test.ts": ["breach"],
  "smoke-scale-out.test.ts": ["scale-out"],
  "smoke-cluster-faults.test.ts": ["cluster-faults"],
};

export function benchmark(name: string): Benchmark {
  const b = BENCHMARKS.find((x) => x.name === name);
  if (!b) throw new Error(`no benchmark named ${name} in bench/benchmarks.ts`);
  return b;
}

/** Registers the test that runs `b` at its tiny size: it starts, measures and cleans up. */
export function smokeTest(test: Test, b: Benchmark): void {
  test(`${b.name} starts and finishes at a tiny size`, async () => {
    const r = await b.tiny();
    assert.is(r.name, b.name);
    assert.ok(r.figures.length > 0);
    for (const f of r.figures) assert.ok(Number.isFinite(f.value), `${f.label} is ${f.value}`);
    assert.ok(r.peakRssMb > 0);
    assert.match(textTable([r]), b.name);
    assert.match(markdownTable([r]), `| ${b.name} |`);
  });
}

/** Registers the smoke tests of the file named `file` in SPLIT. */
export function splitSmokeTests(test: Test, file: string): void {
  for (const name of SPLIT[file]!) smokeTest(test, benchmark(name));
}
