// The benchmarks are not tests (npm run bench runs them at full size, outside CI), but each one must
// still start, measure and clean up: `npm run bench:smoke` runs every benchmark at a tiny size, the
// slow ones in files of their own (split.ts, SPLIT) and every other one in this file. CI runs it after
// npm test, which leaves it out: it is minutes of CPU that test the benchmarks, not the product.
import { readdirSync } from "node:fs";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { BENCHMARKS } from "../benchmarks.js";
import { median, percentile } from "../lib/stats.js";
import { benchmark, smokeTest, SPLIT } from "./split.js";

test("stats: median and nearest-rank percentiles", () => {
  assert.is(median([3, 1, 2]), 2);
  assert.is(median([4, 1, 2, 3]), 2.5);
  const hundred = Array.from({ length: 100 }, (_, i) => i + 1);
  assert.is(percentile(hundred, 50), 50);
  assert.is(percentile(hundred, 99), 99);
});

test("every benchmark the split files name exists, in a file that exists", () => {
  const here = readdirSync(new URL(".", import.meta.url));
  for (const [file, names] of Object.entries(SPLIT)) {
    assert.ok(here.includes(file), `${file} is missing`);
    for (const name of names) benchmark(name);
  }
});

const split = new Set(Object.values(SPLIT).flat());
for (const b of BENCHMARKS) if (!split.has(b.name)) smokeTest(test, b);

test.run();
