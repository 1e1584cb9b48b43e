// Frozen in time: never import application code here, never edit after release; add a new file.
// The first migration that runs on both stores (SQLite after its history, PostgreSQL after its
// baseline): written with kysely's schema builder and portable SQL only.
// One row per dense sequence that is allocated by reading the last number (vaults.num, each vault's
// trade seq). A unit of work upserts the row first: on PostgreSQL that holds a row lock until it
// commits, so a second writer of the same sequence waits, then reads what the first committed.
import type { Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("sequence_locks")
    .addColumn("name", "text", (c) => c.primaryKey())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("sequence_locks").execute();
}
