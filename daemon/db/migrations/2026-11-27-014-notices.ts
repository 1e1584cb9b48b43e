// Frozen in time: never import application code here, never edit after release; add a new file.
// Notices addressed to one user rather than to a vault's parties (a proposal signed by the other
// party, an agent key about to expire), each stored once under its key; and the vault's deadline
// notice, recorded once; and the operator's alerts now firing, so each is announced once when it
// starts and once when it clears, across restarts and daemons. Runs on SQLite and PostgreSQL alike.
import type { Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("user_notices")
    // What the notice is about, e.g. "ProposalSigned:12:0xabc…": a second attempt to record it is a no-op.
    .addColumn("key", "text", (c) => c.primaryKey())
    // Dense, in order (db/name-lock.ts): what the webhooks outbox refers to a notice by.
    .addColumn("id", "bigint", (c) => c.notNull().unique())
    .addColumn("user", "text", (c) => c.notNull())
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("data", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("user_notices_user").on("user_notices").columns(["user", "created_at"]).execute();
  // 1 once DeadlineApproaching is recorded: set by a conditional update in the event's transaction.
  await db.schema.alterTable("vaults").addColumn("deadline_notice", "integer", (c) => c.notNull().defaultTo(0)).execute();
  await db.schema
    .createTable("operator_alerts")
    .addColumn("key", "text", (c) => c.primaryKey())
    // The daemon a per-daemon condition is about (its oracle, its view of the chain); null: shared.
    .addColumn("daemon", "text")
    .addColumn("title", "text", (c) => c.notNull())
    .addColumn("text", "text", (c) => c.notNull())
    .addColumn("since", "bigint", (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("operator_alerts").execute();
  await db.schema.alterTable("vaults").dropColumn("deadline_notice").execute();
  await db.schema.dropTable("user_notices").execute();
}
