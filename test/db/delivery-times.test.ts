// Migration 018 repairs the times the vault projection wrote in the wrong unit: deliveries of
// contract events stamped in seconds (created_at, and next_attempt_at before their first attempt)
// become ms, and a vault's updated_at set in ms by a daemon event becomes seconds; rows already right
// stay as they are. SQLite's older database (PostgreSQL runs the same statements).
import { test } from "uvu";
import * as assert from "uvu/assert";
import { join } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { Kysely, Migrator, SqliteDialect } from "kysely";
import { openStore } from "../../daemon/db/database.js";
import { sqliteMigrations } from "../../daemon/db/migrations/index.js";
import { only } from "../helpers/stores.js";
import { tempDir } from "../helpers/util.js";
import { vaultRow } from "../helpers/rows.js";

only("sqlite", test)("seconds in the outbox become ms, ms in a vault row become seconds; right ones are untouched", async () => {
  const dir = tempDir();
  const path = join(dir.path, "old.db");
  const old = new Kysely<any>({ dialect: new SqliteDialect({ database: new BetterSqlite3(path) }) });
  const { error } = await new Migrator({ db: old, provider: { getMigrations: async () => sqliteMigrations } }).migrateTo("2026-11-27-016-stateless-sign-in");
  if (error) throw error;
  const [wrong, right] = [vaultRow(), vaultRow()];
  await old.insertInto("vaults").values([{ ...wrong, num: 1, updated_at: 1_700_000_123_456 }, { ...right, num: 2, updated_at: 1_700_000_123 }]).execute();
  const delivery = (id: string, created: number, next: number, status: string) => ({
    id, webhook_id: "h", event_id: 1, vault: wrong.address, event_type: "Paused", attempts: 0, next_attempt_at: next, status, created_at: created,
  });
  await old.insertInto("webhook_deliveries").values([
    delivery("seconds", 1_700_000_100, 1_700_000_100, "pending"),
    delivery("retried", 1_700_000_100, 1_700_000_160_000, "pending"), // an attempt since: next_attempt_at from the ms clock
    delivery("ms", 1_700_000_100_000, 1_700_000_100_000, "delivered"),
  ]).execute();
  await old.destroy();

  const store = await openStore(path);
  try {
    const rows = await store.db.selectFrom("webhook_deliveries").select(["id", "created_at", "next_attempt_at"]).orderBy("id").execute();
    assert.equal(rows.map((r) => [r.id, Number(r.created_at), Number(r.next_attempt_at)]), [
      ["ms", 1_700_000_100_000, 1_700_000_100_000],
      ["retried", 1_700_000_100_000, 1_700_000_160_000],
      ["seconds", 1_700_000_100_000, 1_700_000_100_000],
    ]);
    const vaults = await store.db.selectFrom("vaults").select(["address", "updated_at"]).orderBy("num").execute();
    assert.equal(vaults.map((v) => Number(v.updated_at)), [1_700_000_123, 1_700_000_123]);
  } finally {
    await store.db.destroy();
    dir.remove();
  }
});

test.run();
