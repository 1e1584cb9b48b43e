// Frozen in time: never import application code here, never edit after release; add a new file.
import { sql, type Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("agents")
    .addColumn("address", "text", (c) => c.primaryKey()) // never reused
    .addColumn("account", "text", (c) => c.notNull()) // the exchange account (master) it trades for
    .addColumn("sealed_key", "text", (c) => c.notNull())
    .addColumn("created_at", "integer", (c) => c.notNull())
    .addColumn("approved_at", "integer")
    .addColumn("valid_until", "integer")
    .execute();
  await db.schema.createIndex("agents_account").on("agents").columns(["account", "created_at"]).execute();

  await db.schema
    .createTable("orders")
    .addColumn("id", "integer", (c) => c.primaryKey().autoIncrement())
    .addColumn("cloid", "text", (c) => c.notNull().unique())
    .addColumn("user", "text", (c) => c.notNull())
    .addColumn("account", "text", (c) => c.notNull())
    .addColumn("vault_address", "text")
    .addColumn("agent", "text", (c) => c.notNull())
    .addColumn("idempotency_key", "text")
    .addColumn("request_hash", "text", (c) => c.notNull())
    .addColumn("symbol", "text", (c) => c.notNull())
    .addColumn("asset", "integer", (c) => c.notNull())
    .addColumn("side", "text", (c) => c.notNull())
    .addColumn("size", "text", (c) => c.notNull())
    .addColumn("price", "text", (c) => c.notNull())
    .addColumn("tif", "text", (c) => c.notNull())
    .addColumn("reduce_only", "integer", (c) => c.notNull())
    .addColumn("market", "integer", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull()) // pending | resting | filled | canceled | rejected | unknown
    .addColumn("oid", "integer")
    .addColumn("filled_size", "text")
    .addColumn("average_price", "text")
    .addColumn("error_code", "text")
    .addColumn("error_message", "text")
    .addColumn("expires_at", "integer", (c) => c.notNull()) // the action's expiresAfter: no later arrival
    .addColumn("created_at", "integer", (c) => c.notNull())
    .addColumn("updated_at", "integer", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("orders_idempotency")
    .on("orders")
    .columns(["user", "idempotency_key"])
    .unique()
    .where(sql.ref("idempotency_key"), "is not", null)
    .execute();
  await db.schema.createIndex("orders_status").on("orders").columns(["status", "updated_at"]).execute();
  await db.schema.createIndex("orders_account_oid").on("orders").columns(["account", "oid"]).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("orders").execute();
  await db.schema.dropTable("agents").execute();
}
