// mapLimit: the oracle's reads overlap, at most so many at once, and come back in the vaults' order.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { mapLimit } from "../../daemon/lib/map-limit.js";

test("at most `limit` calls in flight; results in the items' order, whatever order they finish in", async () => {
  let inFlight = 0;
  let most = 0;
  const out = await mapLimit([50, 10, 40, 0, 30, 20, 5], 3, async (ms) => {
    most = Math.max(most, ++inFlight);
    await new Promise((r) => setTimeout(r, ms));
    inFlight -= 1;
    return ms * 2;
  });
  assert.equal(out, [100, 20, 80, 0, 60, 40, 10]);
  assert.is(most, 3);
  assert.equal(await mapLimit([], 3, async () => 1), []);
});

test.run();
