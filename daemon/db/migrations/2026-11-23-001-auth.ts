// Frozen in time: never import application code here, never edit after release; add a new file.
import type { Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("users")
    .addColumn("address", "text", (c) => c.primaryKey())
    .addColumn("created_at", "integer", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("auth_nonces")
    .addColumn("nonce", "text", (c) => c.primaryKey())
    .addColumn("address", "text", (c) => c.notNull())
    .addColumn("message", "text", (c) => c.notNull())
    .addColumn("issued_at", "integer", (c) => c.notNull())
    .addColumn("expires_at", "integer", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("auth_nonces_expires_at").on("auth_nonces").column("expires_at").execute();

  await db.schema
    .createTable("sessions")
    .addColumn("token_hash", "text", (c) => c.primaryKey())
    .addColumn("address", "text", (c) => c.notNull().references("users.address").onDelete("cascade"))
    .addColumn("created_at", "integer", (c) => c.notNull())
    .addColumn("refreshed_at", "integer", (c) => c.notNull())
    .addColumn("expires_at", "integer", (c) => c.notNull())
    .addColumn("absolute_expires_at", "integer", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("sessions_address").on("sessions").column("address").execute();
  await db.schema.createIndex("sessions_expires_at").on("sessions").column("expires_at").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("sessions").execute();
  await db.schema.dropTable("auth_nonces").execute();
  await db.schema.dropTable("users").execute();
}
