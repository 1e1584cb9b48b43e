// The benchmarks are not tests (npm run bench runs them at full size, outside CI), but each one must
// still start, measure and clean up: here every benchmark runs at a tiny size.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { BENCHMARKS } from "../../bench/benchmarks.js";
import { markdownTable, textTable } from "../../bench/lib/report.js";
import { median, percentile } from "../../bench/lib/stats.js";

test("stats: median and nearest-rank percentiles", () => {
  assert.is(median([3, 1, 2]), 2);
  assert.is(median([4, 1, 2, 3]), 2.5);
  const hundred = Array.from({ length: 100 }, (_, i) => i + 1);
  assert.is(percentile(hundred, 50), 50);
  assert.is(percentile(hundred, 99), 99);
});

for (const b of BENCHMARKS) {
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

test.run();
