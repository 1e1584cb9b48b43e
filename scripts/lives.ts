// npm run lives -- [--count N] [--seed S] [--no-withdrawals] [--no-kills]: plays N seeded vault lives
// (test/money/lives/) on one daemon, from seed S on, and prints each one's verification outcome;
// a failure prints the seed, the first broken invariant and the life's steps. Exit 1 when any failed.
// Needs the build (`npm run build`): the daemon runs as the built tradevaultd.
import { parseArgs } from "node:util";
import { lifeFailure, playLife } from "../test/money/lives/life.js";
import { startWorld } from "../test/money/lives/world.js";
import { chainRecordsFrom } from "../daemon/verify/chain-records.js";

const DEBUG = Boolean(process.env.LIVES_DEBUG);

const { values } = parseArgs({
  options: {
    count: { type: "string", default: "20" }, seed: { type: "string", default: "1000" },
    "no-withdrawals": { type: "boolean", default: false }, "no-kills": { type: "boolean", default: false },
  },
});
const count = Number(values.count);
const first = Number(values.seed);
const world = await startWorld();
let failed = 0;
const started = Date.now();
try {
  for (let i = 0; i < count; i++) {
    const seed = first + i;
    const life = await playLife(world, seed, { withdrawals: !values["no-withdrawals"], kills: !values["no-kills"] });
    if (life.verification.outcome === "holds") console.log(`seed ${seed}: holds (${life.steps.length} steps)`);
    else {
      failed++;
      console.log(lifeFailure(life));
      if (DEBUG) {
        // The vault's events as the chain serves them now, for the failure's story.
        const chain = chainRecordsFrom(world.rpcUrl());
        try {
          const rec = await chain.read(life.vault);
          for (const e of rec.events) console.log("  ", JSON.stringify(e, (_k, x) => (typeof x === "bigint" ? x.toString() : x)));
        } finally {
          chain.close();
        }
      }
    }
  }
} finally {
  await world.close();
}
const minutes = (Date.now() - started) / 60_000;
console.log(`${count - failed} of ${count} lives held; ${(count / minutes).toFixed(1)} lives verified a minute`);
process.exitCode = failed > 0 ? 1 : 0;
