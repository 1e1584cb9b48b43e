// The sequence lock (db/name-lock.ts) once its row exists: on PostgreSQL it still makes a second
// taker wait, without the write lock every unit of work also takes; on SQLite it writes nothing (a
// written row would be one more page in every commit's WAL sync).
import { test } from "uvu";
import * as assert from "uvu/assert";
import { sql } from "kysely";
import { openStore } from "../../daemon/db/database.js";
import { lockName } from "../../daemon/db/name-lock.js";
import { sqliteHandle } from "../../daemon/db/sqlite-store.js";
import type { Executor, Store } from "../../daemon/db/store.js";
import { only, openTestStore } from "../helpers/stores.js";
import { waitUntil } from "../helpers/util.js";

/** Runs `fn` in a bare transaction on one connection: no unit of work, so no write lock. */
function bare<T>(store: Store, fn: (c: Executor) => Promise<T>): Promise<T> {
  return store.db.connection().execute(async (c) => {
    await sql`begin`.execute(c);
    try {
      const value = await fn(c);
      await sql`commit`.execute(c);
      return value;
    } catch (err) {
      await sql`rollback`.execute(c);
      throw err;
    }
  });
}

only("postgres", test)("a second taker of an existing sequence lock waits for the first to commit", async () => {
  const t = await openTestStore();
  const other = await openStore(t.target);
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  try {
    await t.store.write((trx) => lockName(trx, "s")); // the row exists from here on
    let taken!: () => void;
    const firstHolds = new Promise<void>((r) => (taken = r));
    const first = bare(t.store, async (c) => {
      await lockName(c, "s");
      taken();
      await held;
    });
    await firstHolds;
    let secondHas = false;
    const second = bare(other, async (c) => {
      await lockName(c, "s");
      secondHas = true;
    });
    second.catch(() => undefined);
    const waiting = async () =>
      (await sql<{ n: number }>`select count(*) as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`
        .execute(t.store.db)).rows[0]!.n >= 1;
    await waitUntil(waiting, { what: "the second taker to wait for the first" });
    assert.is(secondHas, false);
    release();
    await Promise.all([first, second]);
    assert.is(secondHas, true);
  } finally {
    release(); // a failed check must not leave the first transaction open (closing would wait on it)
    await other.close();
    await t.close();
  }
});

only("sqlite", test)("taking an existing sequence lock changes no row", async () => {
  const t = await openTestStore();
  try {
    await t.store.write((trx) => lockName(trx, "s"));
    const changes = sqliteHandle(t.store).prepare("select total_changes()").pluck();
    const before = changes.get();
    await t.store.write((trx) => lockName(trx, "s"));
    assert.is(changes.get(), before);
    assert.equal(await t.store.db.selectFrom("sequence_locks").select("name").execute(), [{ name: "s" }]);
  } finally {
    await t.close();
  }
});

test.run();
