// The store's change key, what the vault lists are cached on: it stands still while nothing is
// written and moves after every commit, this store's and (PostgreSQL) any other writer's, including
// a transaction that was already open when the key was read.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { sql } from "kysely";
import { openStore } from "../../daemon/db/database.js";
import type { Executor } from "../../daemon/db/store.js";
import { only, openTestStore, storeKind } from "../helpers/stores.js";

const insert = (x: Executor, v: number) => sql`insert into t values (${v})`.execute(x);

test("the key stands still without writes and moves after a durable and a relaxed commit", async () => {
  const { store, close } = await openTestStore();
  try {
    await sql`create table t (v integer)`.execute(store.db);
    const k0 = await store.changeKey();
    await sql`select count(*) from t`.execute(store.db);
    // On PostgreSQL the key is the server's snapshot: another test file's commit on the shared server moves it too.
    if (storeKind === "sqlite") assert.is(await store.changeKey(), k0, "a read moves nothing");
    await store.write((trx) => insert(trx, 1));
    const k1 = await store.changeKey();
    assert.is.not(k1, k0);
    await store.relaxed((trx) => insert(trx, 2));
    const k2 = await store.changeKey();
    assert.is.not(k2, k1);
    if (storeKind === "sqlite") assert.is(await store.changeKey(), k2);
  } finally {
    await close();
  }
});

only("postgres", test)("another daemon's transaction, open when the key was read, moves the key when it commits", async () => {
  const { store, target, close } = await openTestStore();
  const other = await openStore(target);
  try {
    await sql`create table t (v integer)`.execute(store.db);
    let commit!: () => void;
    const held = new Promise<void>((r) => (commit = r));
    let wrote!: () => void;
    const written = new Promise<void>((r) => (wrote = r));
    const theirs = other.write(async (trx) => {
      await insert(trx, 1);
      wrote();
      await held;
    });
    await written;
    // A later transaction commits first: theirs is now below the snapshot's xmax, in its in-progress
    // list, and only that list says when it commits. (A statement outside a unit of work: units of
    // work wait for each other's write lock, but a writer such as psql does not.)
    await insert(store.db, 10);
    const before = await store.changeKey();
    assert.is(await store.changeKey(), before, "nothing committed meanwhile");
    commit();
    await theirs;
    const after = await store.changeKey();
    assert.is.not(after, before, "their commit moved the key");
    assert.is(await store.changeKey(), after);
    // one that starts and commits between two reads moves it too
    await other.write((trx) => insert(trx, 2));
    assert.is.not(await store.changeKey(), after);
  } finally {
    await other.close();
    await close();
  }
});

test.run();
