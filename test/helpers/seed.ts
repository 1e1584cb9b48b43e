// Randomness for tests that kill or fault at random moments, from a seed: TEST_SEED's, or one drawn
// and printed at the start. A failure names the seed too, so TEST_SEED=<seed> draws the same moments.
import { mulberry32 } from "./mulberry32.js";

export interface Seeded {
  seed: number;
  /** An integer from `lo` to `hi`, both included. */
  int(lo: number, hi: number): number;
  /** `fn` as a test body whose failure message ends with the seed. */
  replayable(fn: () => Promise<void>): () => Promise<void>;
}

/** The file's seeded generator; `label` names it in the line that prints the seed. */
export function testSeed(label: string): Seeded {
  const given = process.env.TEST_SEED;
  const seed = given ? Number(given) : Math.floor(Math.random() * 2 ** 31);
  if (!Number.isSafeInteger(seed)) throw new Error(`TEST_SEED=${given} is not an integer`);
  const replay = `seed ${seed}: TEST_SEED=${seed} replays it`;
  console.log(`[${label}] ${replay}`);
  const next = mulberry32(seed);
  return {
    seed,
    int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)),
    replayable: (fn) => async () => {
      try {
        await fn();
      } catch (e) {
        if (e instanceof Error) e.message = `${e.message} (${replay})`;
        throw e;
      }
    },
  };
}
