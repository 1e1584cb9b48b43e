// The store's two write modes: durable commits (synchronous=FULL) by default, and relaxed ones that
// skip the fsync for one transaction and must always put FULL back.
import { test } from "uvu";
import * as assert from "uvu/assert";
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
  } finally {
    await store.close();
    dir.remove();
  }
});

test.run();
