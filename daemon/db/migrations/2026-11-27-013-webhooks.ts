// Frozen in time: never import application code here, never edit after release; add a new file.
// Users' webhooks and their outbox. A delivery row is written in the same transaction as the event
// it carries (only when the event row is new), so a crash loses none and a restart sends what was
// pending; `claimed_by`/`claim_until` let one of several daemons sharing a database take a row for a
// while. Runs on SQLite and PostgreSQL alike (times are bigint Unix ms).
import type { Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("webhooks")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("owner", "text", (c) => c.notNull())
    .addColumn("url", "text", (c) => c.notNull())
    // json | slack | discord | telegram | ntfy
    .addColumn("format", "text", (c) => c.notNull())
    // JSON arrays of event types and of vault addresses; null: all.
    .addColumn("events", "text")
    .addColumn("vaults", "text")
    // The signing secret, sealed with the daemon's secret box as the agent keys are.
    .addColumn("secret_sealed", "text", (c) => c.notNull())
    .addColumn("enabled", "integer", (c) => c.notNull().defaultTo(1))
    .addColumn("disabled_reason", "text")
    // Since when every delivery failed (null while the last one succeeded).
    .addColumn("failing_since", "bigint")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("webhooks_owner").on("webhooks").column("owner").execute();
  await db.schema
    .createTable("webhook_deliveries")
    // `<webhook id>.<event id>`: stable, sent as X-Tradevault-Delivery so a receiver drops a repeat.
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("webhook_id", "text", (c) => c.notNull())
    .addColumn("event_id", "bigint", (c) => c.notNull())
    // null: an event of no vault (a proposal's).
    .addColumn("vault", "text")
    .addColumn("event_type", "text", (c) => c.notNull())
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("next_attempt_at", "bigint", (c) => c.notNull())
    // pending | delivered | failed
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("last_status", "integer")
    .addColumn("latency_ms", "bigint")
    .addColumn("error", "text")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("delivered_at", "bigint")
    .addColumn("claimed_by", "text")
    .addColumn("claim_until", "bigint")
    .execute();
  await db.schema.createIndex("webhook_deliveries_due").on("webhook_deliveries").columns(["status", "next_attempt_at"]).execute();
  await db.schema.createIndex("webhook_deliveries_webhook").on("webhook_deliveries").columns(["webhook_id", "event_id"]).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("webhook_deliveries").execute();
  await db.schema.dropTable("webhooks").execute();
}
