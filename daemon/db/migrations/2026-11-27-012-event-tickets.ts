// Frozen in time: never import application code here, never edit after release; add a new file.
// Event-stream tickets in the database, so a ticket taken from one daemon opens the stream on any
// daemon sharing it. Only the ticket's SHA-256 is kept. Runs on SQLite and PostgreSQL alike.
import type { Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("event_tickets")
    .addColumn("hash", "text", (c) => c.primaryKey())
    .addColumn("address", "text", (c) => c.notNull())
    .addColumn("session_key", "text", (c) => c.notNull())
    .addColumn("expires_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("event_tickets_expiry").on("event_tickets").column("expires_at").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("event_tickets").execute();
}
