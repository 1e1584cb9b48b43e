// The daemon opens the store its config names: config.databaseUrl (PostgreSQL) when set, else the
// data directory's SQLite file. A daemon restarted on the same data directory finds its records.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { randomWallet, signIn, startTestDaemon } from "../helpers/daemon.js";
import { storeKind } from "../helpers/stores.js";
import { tempDir } from "../helpers/util.js";

test("a daemon keeps its records in this run's store, and finds them again after a restart", async () => {
  const dir = tempDir();
  try {
    const first = await startTestDaemon({ dataDir: dir.path });
    let token: string;
    try {
      assert.is(first.daemon.store.kind, storeKind);
      ({ token } = await signIn(first.http, randomWallet()));
    } finally {
      await first.close();
    }
    // the SQLite file is there only when SQLite is the store
    assert.is(existsSync(join(dir.path, "tradevault-sim.db")), storeKind === "sqlite");
    const again = await startTestDaemon({ dataDir: dir.path });
    try {
      assert.is((await again.http.get("/api/account", { token })).status, 200, "the session survived the restart");
    } finally {
      await again.close();
    }
  } finally {
    dir.remove();
  }
});

test.run();
