// Frozen in time: never import application code here, never edit after release; add a new file.
// Enforcement of each paused vault's breach policy: one row per vault while it is paused, for the
// pause it is paused by (`pause_pos`, the Paused event's chain position). It lets a restarted daemon
// resume where it was (since when the vault is out of policy, how often it tried, what it already
// closed) and record the outcome events once per pause.
import type { Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("vault_enforcement")
    .addColumn("vault", "text", (c) => c.primaryKey())
    .addColumn("pause_pos", "integer", (c) => c.notNull())
    // holds | enforcing | failing
    .addColumn("state", "text", (c) => c.notNull())
    // Unix ms: since when the vault is in this state.
    .addColumn("since", "integer", (c) => c.notNull())
    // Unix ms: when this pause's enforcement began (the first time the vault was seen out of policy).
    .addColumn("started_at", "integer", (c) => c.notNull())
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("last_error", "text")
    .addColumn("canceled_orders", "integer", (c) => c.notNull().defaultTo(0))
    // JSON arrays: positions closed (with their fills) and positions left as dust.
    .addColumn("closed", "text", (c) => c.notNull().defaultTo("[]"))
    .addColumn("dust", "text", (c) => c.notNull().defaultTo("[]"))
    // 0/1: the outcome event (OrdersCanceled or Flattened) and EnforcementFailing were recorded.
    .addColumn("outcome_recorded", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("failing_recorded", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("updated_at", "integer", (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("vault_enforcement").execute();
}
