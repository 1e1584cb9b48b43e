// The store's two write modes: durable commits (synchronous=FULL) by default, and relaxed ones that
// skip the fsync for one transaction and must always put FULL back.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { statSync } from "node:fs";
import { join } from "node:path";
import { openStore } from "../../daemon/db/database.js";
import { tempDir } from "../helpers/util.js";

const FULL = 2;
const NORMAL = 1;

test("relaxed commits run with synchronous=NORMAL and restore FULL, also when they throw", async () => {
  const dir = tempDir();
  const store = await openStore(join(dir.path, "t.db"));
  const level = () => store.sqlite.pragma("synchronous", { simple: true });
  try {
    assert.is(level(), FULL);
    store.sqlite.exec("CREATE TABLE t (v INTEGER)");
    const seen = store.relaxed(() => {
      store.sqlite.prepare("INSERT INTO t VALUES (1)").run();
      return level();
    });
    assert.is(seen, NORMAL);
    assert.is(level(), FULL);
    assert.throws(() => store.relaxed(() => {
      store.sqlite.prepare("INSERT INTO t VALUES (2)").run();
      throw new Error("boom");
    }), /boom/);
    assert.is(level(), FULL, "FULL is back after a failed transaction");
    assert.equal(store.sqlite.prepare("SELECT v FROM t").pluck().all(), [1], "the failed transaction rolled back");
    assert.is(store.immediate(() => level()), FULL);
    // inside a durable transaction a relaxed write joins it instead of failing
    store.immediate(() => store.relaxed(() => store.sqlite.prepare("INSERT INTO t VALUES (3)").run()));
    assert.equal(store.sqlite.prepare("SELECT v FROM t").pluck().all(), [1, 3]);
    assert.is(level(), FULL);
  } finally {
    await store.close();
    dir.remove();
  }
});

test("grouped calls made together share one commit; one that throws is rolled back alone", async () => {
  const dir = tempDir();
  const store = await openStore(join(dir.path, "t.db"));
  try {
    store.sqlite.exec("CREATE TABLE t (v INTEGER UNIQUE)");
    const insert = (v: number) => () => store.sqlite.prepare("INSERT INTO t VALUES (?)").run(v).changes;
    // Each commit appends at least one WAL frame; this group's one commit writes two (the table's page
    // and the index's), where separate commits would write at least one each for three calls.
    store.sqlite.pragma("wal_checkpoint(TRUNCATE)");
    const pageSize = store.sqlite.pragma("page_size", { simple: true }) as number;
    const walFrames = () => Math.max(0, (statSync(join(dir.path, "t.db-wal")).size - 32) / (pageSize + 24));
    const results = await Promise.allSettled([
      store.grouped(insert(1)),
      store.grouped(insert(2)),
      store.grouped(() => {
        insert(3)();
        insert(1)(); // UNIQUE violation: this call's own insert of 3 must go too
      }),
      store.grouped(() => insert(4)()),
    ]);
    const frames = walFrames();
    assert.equal(results.map((r) => r.status), ["fulfilled", "fulfilled", "rejected", "fulfilled"]);
    assert.equal(store.sqlite.prepare("SELECT v FROM t ORDER BY v").pluck().all(), [1, 2, 4]);
    assert.ok(frames >= 1 && frames <= 2, `four calls, one commit (${frames} WAL frames)`);
    assert.is(store.sqlite.pragma("synchronous", { simple: true }), FULL);
    // calls made in a later turn form a new group
    assert.is(await store.grouped(insert(5)), 1);
    // a call still queued when the store closes is committed first
    const late = store.grouped(insert(6));
    await store.close();
    assert.is(await late, 1);
    const reopened = await openStore(join(dir.path, "t.db"));
    assert.equal(reopened.sqlite.prepare("SELECT v FROM t ORDER BY v").pluck().all(), [1, 2, 4, 5, 6]);
    await reopened.close();
  } finally {
    dir.remove();
  }
});

test.run();
