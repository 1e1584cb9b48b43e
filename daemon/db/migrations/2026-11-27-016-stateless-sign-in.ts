// Frozen in time: never import application code here, never edit after release; add a new file.
// Stateless sign-in challenges: a challenge's nonce is an HMAC under a key every daemon on
// the database shares, so issuing one writes nothing; a login records the nonce it spent, kept until
// the nonce expires, and the primary key refuses a second login with it. auth_nonces (one row per
// challenge issued) is no longer written; it stays so that migrate-store and older backups read alike.
// Runs on SQLite and PostgreSQL alike.
import type { Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("auth_keys")
    .addColumn("name", "text", (c) => c.primaryKey())
    .addColumn("secret", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema
    .createTable("auth_used_nonces")
    .addColumn("nonce", "text", (c) => c.primaryKey())
    .addColumn("expires_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("auth_used_nonces_expiry").on("auth_used_nonces").column("expires_at").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("auth_used_nonces").execute();
  await db.schema.dropTable("auth_keys").execute();
}
