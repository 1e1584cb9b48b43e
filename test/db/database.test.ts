// The store's write modes: durable commits (synchronous=FULL) by default, relaxed ones that skip
// the fsync for one transaction and must always put FULL back, and group commits.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { statSync } from "node:fs";
import { join } from "node:path";
import { sql } from "kysely";
import { openStore, type Executor } from "../../daemon/db/database.js";
import { tempDir } from "../helpers/util.js";

const FULL = 2;
const NORMAL = 1;

// `t` is no table of the daemon's schema: the tests reach it through raw SQL on the executor.
const insert = (x: Executor, v: number) => sql`INSERT INTO t VALUES (${v})`.execute(x).then((r) => Number(r.numAffectedRows ?? 0n));
const level = async (x: Executor) => (await sql<{ synchronous: number }>`PRAGMA synchronous`.execute(x)).rows[0]!.synchronous;
const values = (x: Executor) => sql<{ v: number }>`SELECT v FROM t ORDER BY v`.execute(x).then((r) => r.rows.map((row) => row.v));

test("relaxed commits run with synchronous=NORMAL and restore FULL, also when they throw", async () => {
  const dir = tempDir();
  const store = await openStore(join(dir.path, "t.db"));
  try {
    assert.is(await level(store.db), FULL);
    await sql`CREATE TABLE t (v INTEGER)`.execute(store.db);
    const seen = await store.relaxed(async (trx) => {
      await insert(trx, 1);
      return level(trx);
    });
    assert.is(seen, NORMAL);
    assert.is(await level(store.db), FULL);
    try {
      await store.relaxed(async (trx) => {
        await insert(trx, 2);
        throw new Error("boom");
      });
      assert.unreachable("the relaxed write threw");
    } catch (err) {
      assert.match((err as Error).message, /boom/);
    }
    assert.is(await level(store.db), FULL, "FULL is back after a failed transaction");
    assert.equal(await values(store.db), [1], "the failed transaction rolled back");
    assert.is(await store.write((trx) => level(trx)), FULL);
    // inside a durable transaction a relaxed write joins it (a savepoint) instead of failing
    await store.write((trx) => store.relaxed((inner) => insert(inner, 3)).then(() => insert(trx, 4)));
    assert.equal(await values(store.db), [1, 3, 4]);
    assert.is(await level(store.db), FULL);
    // a unit of work that fails inside another rolls back alone
    await store.write(async (trx) => {
      await store.write((inner) => insert(inner, 5).then(() => Promise.reject(new Error("inner")))).catch(() => undefined);
      await insert(trx, 6);
    });
    assert.equal(await values(store.db), [1, 3, 4, 6]);
  } finally {
    await store.close();
    dir.remove();
  }
});

test("writes begin IMMEDIATE: a second writer on another connection waits instead of failing mid-transaction", async () => {
  const dir = tempDir();
  const store = await openStore(join(dir.path, "t.db"));
  try {
    await sql`CREATE TABLE t (v INTEGER)`.execute(store.db);
    let inTransaction = false;
    await store.write(async (trx) => {
      await insert(trx, 1);
      inTransaction = store.sqlite.inTransaction;
    });
    assert.ok(inTransaction, "the callback runs inside a transaction");
    // BEGIN IMMEDIATE takes the write lock at once: another connection cannot start writing meanwhile.
    const other = new (store.sqlite.constructor as new (p: string, o?: object) => typeof store.sqlite)(join(dir.path, "t.db"), { timeout: 0 });
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
    await store.close();
    dir.remove();
  }
});

test("grouped calls made together share one commit; one that throws is rolled back alone", async () => {
  const dir = tempDir();
  const store = await openStore(join(dir.path, "t.db"));
  try {
    await sql`CREATE TABLE t (v INTEGER UNIQUE)`.execute(store.db);
    // Each commit appends at least one WAL frame; this group's one commit writes two (the table's page
    // and the index's), where separate commits would write at least one each for four calls.
    store.sqlite.pragma("wal_checkpoint(TRUNCATE)");
    const pageSize = store.sqlite.pragma("page_size", { simple: true }) as number;
    const walFrames = () => Math.max(0, (statSync(join(dir.path, "t.db-wal")).size - 32) / (pageSize + 24));
    const results = await Promise.allSettled([
      store.grouped((trx) => insert(trx, 1)),
      store.grouped((trx) => insert(trx, 2)),
      store.grouped(async (trx) => {
        await insert(trx, 3);
        await insert(trx, 1); // UNIQUE violation: this call's own insert of 3 must go too
      }),
      store.grouped((trx) => insert(trx, 4)),
    ]);
    const frames = walFrames();
    assert.equal(results.map((r) => r.status), ["fulfilled", "fulfilled", "rejected", "fulfilled"]);
    assert.equal(await values(store.db), [1, 2, 4]);
    assert.ok(frames >= 1 && frames <= 2, `four calls, one commit (${frames} WAL frames)`);
    assert.is(await level(store.db), FULL);
    // calls made in a later turn form a new group
    assert.is(await store.grouped((trx) => insert(trx, 5)), 1);
    // a call still queued when the store closes is committed first
    const late = store.grouped((trx) => insert(trx, 6));
    await store.close();
    assert.is(await late, 1);
    const reopened = await openStore(join(dir.path, "t.db"));
    assert.equal(await values(reopened.db), [1, 2, 4, 5, 6]);
    await reopened.close();
  } finally {
    dir.remove();
  }
});

test.run();
