// The store's write modes on either store: durable commits by default, relaxed ones that skip the
// sync for one transaction and must always put it back (SQLite's synchronous=NORMAL for one commit,
// PostgreSQL's synchronous_commit=off set locally), units of work nested as savepoints.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { sql } from "kysely";
import { openStore } from "../../daemon/db/database.js";
import { postgresMigrations } from "../../daemon/db/migrations/index.js";
import { sqliteHandle } from "../../daemon/db/sqlite-store.js";
import type { Executor } from "../../daemon/db/store.js";
import { freshDatabase } from "../helpers/postgres.js";
import { only, openTestStore, storeKind } from "../helpers/stores.js";

// `t` is no table of the daemon's schema: the tests reach it through raw SQL on the executor.
const insert = (x: Executor, v: number) => sql`INSERT INTO t VALUES (${v})`.execute(x).then((r) => Number(r.numAffectedRows ?? 0n));
const values = (x: Executor) => sql<{ v: number }>`SELECT v FROM t ORDER BY v`.execute(x).then((r) => r.rows.map((row) => row.v));

/** How durable a commit on `x` is now: "durable" (FULL, on) or "relaxed" (NORMAL, off). */
async function level(x: Executor): Promise<"durable" | "relaxed"> {
  if (storeKind === "sqlite") {
    const n = (await sql<{ synchronous: number }>`PRAGMA synchronous`.execute(x)).rows[0]!.synchronous;
    return n === 2 ? "durable" : n === 1 ? "relaxed" : (`synchronous=${n}` as never);
  }
  const s = (await sql<{ s: string }>`select current_setting('synchronous_commit') as s`.execute(x)).rows[0]!.s;
  return s === "on" ? "durable" : s === "off" ? "relaxed" : (`synchronous_commit=${s}` as never);
}

test("relaxed commits skip the sync for their own commit only, also when they throw; nested units are savepoints", async () => {
  const { store, close } = await openTestStore();
  try {
    assert.is(await level(store.db), "durable");
    await sql`CREATE TABLE t (v INTEGER)`.execute(store.db);
    const seen = await store.relaxed(async (trx) => {
      await insert(trx, 1);
      return level(trx);
    });
    assert.is(seen, "relaxed");
    assert.is(await level(store.db), "durable");
    try {
      await store.relaxed(async (trx) => {
        await insert(trx, 2);
        throw new Error("boom");
      });
      assert.unreachable("the relaxed write threw");
    } catch (err) {
      assert.match((err as Error).message, /boom/);
    }
    assert.is(await level(store.db), "durable", "durable again after a failed transaction");
    assert.equal(await values(store.db), [1], "the failed transaction rolled back");
    assert.is(await store.write((trx) => level(trx)), "durable");
    // inside a durable transaction a relaxed write joins it (a savepoint) instead of failing
    await store.write((trx) => store.relaxed((inner) => insert(inner, 3)).then(() => insert(trx, 4)));
    assert.equal(await values(store.db), [1, 3, 4]);
    assert.is(await level(store.db), "durable");
    // a unit of work that fails inside another rolls back alone
    await store.write(async (trx) => {
      await store.write((inner) => insert(inner, 5).then(() => Promise.reject(new Error("inner")))).catch(() => undefined);
      await insert(trx, 6);
    });
    assert.equal(await values(store.db), [1, 3, 4, 6]);
  } finally {
    await close();
  }
});

only("sqlite", test)("writes begin IMMEDIATE: a second writer on another connection waits instead of failing mid-transaction", async () => {
  const { store, target, close } = await openTestStore();
  const sqlite = sqliteHandle(store);
  try {
    await sql`CREATE TABLE t (v INTEGER)`.execute(store.db);
    let inTransaction = false;
    await store.write(async (trx) => {
      await insert(trx, 1);
      inTransaction = sqlite.inTransaction;
    });
    assert.ok(inTransaction, "the callback runs inside a transaction");
    // BEGIN IMMEDIATE takes the write lock at once: another connection cannot start writing meanwhile.
    const other = new (sqlite.constructor as new (p: string, o?: object) => typeof sqlite)(target, { timeout: 0 });
    try {
      let refused = false;
      await store.write(async () => {
        try {
          other.prepare("INSERT INTO t VALUES (9)").run();
        } catch {
          refused = true;
        }
      });
      assert.ok(refused, "the write lock was held from the start of the unit of work");
    } finally {
      other.close();
    }
  } finally {
    await close();
  }
});

only("postgres", test)("a statement that failed inside a unit of work, its error caught, fails the unit: nothing is half-written", async () => {
  const { store, close } = await openTestStore();
  try {
    await sql`CREATE TABLE t (v INTEGER UNIQUE)`.execute(store.db);
    await store.write((trx) => insert(trx, 1));
    // PostgreSQL aborts the whole transaction at the failed statement, and answers its COMMIT with
    // ROLLBACK (no error): the write must reject, not resolve as if 2 were stored.
    const attempt = store.write(async (trx) => {
      await insert(trx, 2);
      await insert(trx, 1).catch(() => undefined);
    });
    await attempt.then(() => assert.unreachable("the write resolved"), (err: Error) => assert.match(err.message, /rolled back/));
    assert.equal(await values(store.db), [1]);
    // the same inside a nested unit of work is the savepoint's to undo: the outer one commits
    await store.write(async (trx) => {
      await insert(trx, 2);
      await store.write((inner) => insert(inner, 1)).catch(() => undefined);
    });
    assert.equal(await values(store.db), [1, 2]);
  } finally {
    await close();
  }
});

test("work a transaction started that runs after its commit opens a transaction of its own", async () => {
  const { store, close } = await openTestStore();
  try {
    await sql`CREATE TABLE t (v INTEGER)`.execute(store.db);
    const seen: Executor[] = [];
    let later!: Promise<number>;
    await store.write(async (trx) => {
      seen.push(trx);
      await insert(trx, 1);
      // The timer carries the transaction's async context past its commit.
      later = new Promise((r) => setTimeout(r, 5)).then(() => store.write((inner) => (seen.push(inner), insert(inner, 2))));
    });
    assert.is(await later, 1);
    assert.ok(seen[1] !== seen[0], "the later write joined a finished transaction");
    // and it committed: a failure after it in a new transaction leaves it stored
    await store.write((trx) => insert(trx, 3).then(() => Promise.reject(new Error("boom")))).catch(() => undefined);
    assert.equal(await values(store.db), [1, 2]);
  } finally {
    await close();
  }
});

test("a write begun outside a transaction while one is open does not join it: each commits or rolls back alone", async () => {
  const { store, close } = await openTestStore();
  try {
    await sql`CREATE TABLE t (v INTEGER)`.execute(store.db);
    let entered!: () => void;
    const inside = new Promise<void>((r) => (entered = r));
    let finish!: () => void;
    const held = new Promise<void>((r) => (finish = r));
    const failing = store.write(async (trx) => {
      await insert(trx, 1);
      entered();
      await held;
      throw new Error("boom");
    });
    await inside;
    // On SQLite this one waits for the connection; on PostgreSQL it runs beside the other.
    const other = store.write((trx) => insert(trx, 2));
    await new Promise((r) => setTimeout(r, 5));
    finish();
    await failing.then(() => assert.unreachable("the write resolved"), (err: Error) => assert.match(err.message, /boom/));
    assert.is(await other, 1);
    assert.equal(await values(store.db), [2]);
  } finally {
    await close();
  }
});

only("postgres", test)("two daemons opening one empty database at once migrate it once, and both work", async () => {
  const url = await freshDatabase();
  const stores = await Promise.all([openStore(url), openStore(url), openStore(url)]);
  try {
    const names = (await sql<{ name: string }>`select name from kysely_migration order by name`.execute(stores[0]!.db)).rows.map((r) => r.name);
    assert.equal(names, Object.keys(postgresMigrations).sort());
    assert.is(names[0], "2026-11-26-009-postgres-baseline");
    await stores[1]!.write((trx) => sql`insert into users (address, created_at) values ('0xA', 1)`.execute(trx));
    assert.equal((await sql<{ n: number }>`select count(*) as n from users`.execute(stores[2]!.db)).rows, [{ n: 1 }]);
  } finally {
    for (const s of stores) await s.close();
  }
});

test.run();
