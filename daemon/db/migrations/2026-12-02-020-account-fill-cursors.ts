// Frozen in time: never import application code here, never edit after release; add a new file.
// Where the daemon stands in the fills of each exchange account it trades for outside any vault: the
// newest fill time it has read, so each read of the account's fills starts there (its liquidations
// and auto-deleveragings are told to the owner once). Runs on SQLite and PostgreSQL alike.
import type { Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("account_fill_cursors")
    .addColumn("account", "text", (c) => c.primaryKey())
    // The exchange's ms of the newest fill read; the next read starts at it.
    .addColumn("through_ms", "bigint", (c) => c.notNull())
    // The daemon's ms of the last read: the accounts read longest ago go first.
    .addColumn("read_at", "bigint", (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("account_fill_cursors").execute();
}
