// Frozen in time: never import application code here, never edit after release; add a new file.
// The protective triggers the daemon placed (a reduce-only stop-loss or take-profit, alone or as an
// entry's child), kept until the position they protect is closed: a market trigger that fires without
// filling is closed at market by the daemon, and the triggers of a position gone flat are canceled.
// Runs on SQLite and PostgreSQL alike.
import type { Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("stops")
    .addColumn("cloid", "text", (c) => c.primaryKey())
    .addColumn("user", "text", (c) => c.notNull())
    .addColumn("account", "text", (c) => c.notNull())
    .addColumn("vault_address", "text")
    .addColumn("symbol", "text", (c) => c.notNull())
    .addColumn("kind", "text", (c) => c.notNull())
    // The trigger's own side: a sell protects a long, a buy a short.
    .addColumn("side", "text", (c) => c.notNull())
    .addColumn("trigger_price", "text", (c) => c.notNull())
    .addColumn("size", "text", (c) => c.notNull())
    .addColumn("market", "integer", (c) => c.notNull())
    .addColumn("oid", "bigint")
    // armed (watched), fired (fired without filling: the daemon's close is under way), done.
    .addColumn("state", "text", (c) => c.notNull())
    .addColumn("outcome", "text")
    // 1 once the position it protects was seen open: only then does a flat position cancel it.
    .addColumn("position_seen", "integer", (c) => c.notNull())
    .addColumn("reason", "text")
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
    // The daemon's close in flight, settled by its cloid before another is sent.
    .addColumn("close_cloid", "text")
    // Not before this (Unix ms): the backoff between closes, and the lease of the daemon trying one.
    .addColumn("next_try_at", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("stops_live").on("stops").columns(["state", "account"]).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("stops").execute();
}
