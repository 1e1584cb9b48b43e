// Frozen in time: never import application code here, never edit after release; add a new file.
// Several daemons on one database: their heartbeats, the leases they hold (each vault's oracle work,
// the operator's sending), and the operator transactions handed to the sender. Dialect-neutral:
// it runs on SQLite and PostgreSQL alike.
import type { Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("daemons")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("started_at", "bigint", (c) => c.notNull())
    .addColumn("heartbeat_at", "bigint", (c) => c.notNull())
    .addColumn("info", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createTable("leases")
    .addColumn("key", "text", (c) => c.primaryKey())
    .addColumn("holder", "text", (c) => c.notNull())
    .addColumn("epoch", "bigint", (c) => c.notNull())
    .addColumn("expires_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("leases_holder").on("leases").columns(["holder", "expires_at"]).execute();
  await db.schema
    .createTable("tx_requests")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("requester", "text", (c) => c.notNull())
    .addColumn("to", "text")
    .addColumn("data", "text", (c) => c.notNull())
    .addColumn("value", "text")
    .addColumn("gas_limit", "text")
    .addColumn("nonce", "bigint")
    .addColumn("purpose", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("tx_hash", "text")
    .addColumn("tx_nonce", "bigint")
    .addColumn("error", "text")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("tx_requests_status").on("tx_requests").columns(["status", "created_at"]).execute();
  // Which contracts each chain uses, shared by every daemon on the database (a daemon's own
  // <data-dir>/chain/<key>.json stays as its copy).
  await db.schema
    .createTable("deployments")
    .addColumn("key", "text", (c) => c.primaryKey())
    .addColumn("record", "text", (c) => c.notNull())
    .execute();
  // A request the sender claimed is found in the journal after a failover: sent, or never signed.
  await db.schema.alterTable("tx_journal").addColumn("request_id", "text").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("tx_journal").dropColumn("request_id").execute();
  await db.schema.dropTable("deployments").execute();
  await db.schema.dropTable("tx_requests").execute();
  await db.schema.dropTable("leases").execute();
  await db.schema.dropTable("daemons").execute();
}
