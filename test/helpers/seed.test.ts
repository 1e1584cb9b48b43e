// The crash tests' seeded moments: TEST_SEED draws the same sequence again, and a failure says the seed.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { testSeed } from "./seed.js";

/** testSeed under TEST_SEED=`seed`, its printed line captured. */
function seededWith(seed: string | undefined) {
  const before = process.env.TEST_SEED;
  const log = console.log;
  const said: string[] = [];
  console.log = (...args: unknown[]) => void said.push(args.join(" "));
  try {
    if (seed === undefined) delete process.env.TEST_SEED;
    else process.env.TEST_SEED = seed;
    return { seeded: testSeed("here"), said };
  } finally {
    console.log = log;
    if (before === undefined) delete process.env.TEST_SEED;
    else process.env.TEST_SEED = before;
  }
}

test("a drawn seed is printed, and TEST_SEED with it draws the same integers", () => {
  const first = seededWith(undefined);
  assert.equal(first.said, [`[here] seed ${first.seeded.seed}: TEST_SEED=${first.seeded.seed} replays it`]);
  const again = seededWith(String(first.seeded.seed)).seeded;
  const draws = (s: typeof again) => Array.from({ length: 20 }, () => s.int(2, 11));
  const a = draws(first.seeded);
  assert.equal(draws(again), a);
  assert.ok(a.every((n) => n >= 2 && n <= 11 && Number.isInteger(n)));
});

test("a test body's failure names the seed; a TEST_SEED that is no integer is refused", async () => {
  const { seeded } = seededWith("42");
  const err = await seeded.replayable(async () => assert.is(1, 2, "one is two"))().catch((e: Error) => e);
  assert.is((err as Error).message, "one is two (seed 42: TEST_SEED=42 replays it)");
  assert.throws(() => seededWith("soon"), /TEST_SEED=soon is not an integer/);
});

test.run();
