import { suite } from "uvu";
import * as assert from "uvu/assert";
import { backoffMs } from "../../daemon/lib/backoff.js";

const t = suite("backoff");

t("the first retry waits the first delay, each later one twice the one before, never past the cap", () => {
  assert.equal([1, 2, 3, 4, 5, 6, 7].map((r) => backoffMs(r, 500, 30_000)), [500, 1_000, 2_000, 4_000, 8_000, 16_000, 30_000]);
  assert.is(backoffMs(0, 500, 30_000), 500, "a retry number below 1 counts as the first");
  assert.is(backoffMs(10_000, 1_000, Infinity), 1_000 * 2 ** 30, "without a cap the doubling stops at 2^30 (no Infinity)");
});

t.run();
