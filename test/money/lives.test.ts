// Seeded vault lives (test/money/lives/): each fixed seed plays one random but reproducible vault life
// through the daemon, as its users would, and ends with the vault's verification, which must hold.
// `npm run lives -- --count N --seed S` plays more. On PostgreSQL (two daemons sharing the
// database, lives/world.ts) the found seeds and 8 others, to keep the run short; SQLite plays them and 20 others.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { lifeFailure, playLife } from "./lives/life.js";
import { startWorld } from "./lives/world.js";
import { storeKind } from "../helpers/stores.js";

/** Seeds that once found a defect, each kept for good: 6, a close whose own final reading breached (it hung); 16838, two daemons reading one vault in one second as it moved (a record replaced after its reading was mined). */
const FOUND = [6, 16838];
const SEEDS = [...FOUND, ...Array.from({ length: storeKind === "postgres" ? 8 : 20 }, (_, i) => 1_000 + i * 7_919)];
const world = await startWorld();
test.after(() => world.close());

for (const seed of SEEDS) {
  test(`life ${seed}`, async () => {
    const life = await playLife(world, seed, { withdrawals: true, kills: true });
    assert.ok(life.verification.outcome === "holds", lifeFailure(life));
  });
}

test.run();
