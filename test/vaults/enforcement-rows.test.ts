// A paused vault's enforcement row takes a change only once its save has committed
// (enforcement-rows.ts): the vault's detail reads the row in memory, so a state shown before its
// commit lands could say "holds" while the outcome event is not stored yet, and a save that fails
// must leave the row as it was. Runs on both stores.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { sql } from "kysely";
import type { Executor, UnitOfWork } from "../../daemon/db/store.js";
import * as repo from "../../daemon/db/vaults-repo.js";
import { createEnforcementRows } from "../../daemon/vaults/enforcement-rows.js";
import { openTestStore, rows } from "../helpers/stores.js";
import { vaultRow } from "../helpers/rows.js";

/** The store's durable writes, each held until the test lets it commit (or fail). */
function heldWrites(work: UnitOfWork) {
  const waiting: Array<{ go(fail?: Error): void }> = [];
  const held: UnitOfWork = {
    write: <T>(fn: (trx: Executor) => Promise<T>) => new Promise<void>((resolve, reject) => {
      waiting.push({ go: (fail) => (fail ? reject(fail) : resolve()) });
    }).then(() => work.write(fn)),
    relaxed: (fn) => work.relaxed(fn),
  };
  return { held, next: () => waiting.shift()! };
}

test("the row shows a new state and its recorded flag only after the commit that stores its event", async () => {
  const t = await openTestStore();
  try {
    const v = vaultRow();
    await t.store.write((trx) => repo.insertVault(trx, v));
    const vault = (await repo.findVault(t.store.db, v.address))!;
    const published: unknown[] = [];
    const { held, next } = heldWrites(t.store);
    const enforcement = createEnforcementRows({ db: t.store.db, work: held, publish: (r) => published.push(...r), clock: () => 1_700_000_000_000 });
    const row = enforcement.forVault(vault);

    const saving = enforcement.save(row, { ...enforcement.toState(row, "holds"), outcome_recorded: 1 }, { type: "OrdersCanceled", data: { count: 2 } });
    await new Promise((r) => setImmediate(r));
    assert.is(row.state, "enforcing", "the state moved before its commit");
    assert.is(row.outcome_recorded, 0);
    next().go();
    await saving;
    assert.is(row.state, "holds");
    assert.is(row.outcome_recorded, 1);
    assert.is(published.length, 1);
    const stored = await rows<{ type: string }>(t.store, sql`select type from vault_events where vault_num = ${vault.num}`);
    assert.equal(stored.map((e) => e.type), ["OrdersCanceled"]);

    const failing = enforcement.save(row, { ...enforcement.toState(row, "failing"), last_error: "down", failing_recorded: 1 }, { type: "EnforcementFailing", data: {} });
    next().go(new Error("disk full"));
    assert.is(await failing.then(() => "saved", (e: Error) => e.message), "disk full");
    assert.is(row.state, "holds", "a failed save changed the row");
    assert.is(row.last_error, null);
    assert.is(row.failing_recorded, 0);
  } finally {
    await t.close();
  }
});

test.run();
