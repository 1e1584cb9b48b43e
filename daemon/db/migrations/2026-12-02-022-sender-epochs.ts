// Frozen in time: never import application code here, never edit after release; add a new file.
// Which sender signed each operator transaction, under which epoch of the sender's lease, and under
// which epoch a relayed request was claimed: a sender that lost its lease cannot sign, and each row
// says who did. Null on rows signed before this migration, or by a daemon alone on its database.
// Runs on SQLite and PostgreSQL alike.
import { sql, type Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("tx_journal").addColumn("sender", "text").execute();
  await db.schema.alterTable("tx_journal").addColumn("sender_epoch", "integer").execute();
  await db.schema.alterTable("tx_requests").addColumn("sent_epoch", "integer").execute();
  // Each relayed signature looks its request up in the journal; most rows have none.
  await db.schema.createIndex("tx_journal_request").on("tx_journal").column("request_id").where(sql.ref("request_id"), "is not", null).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("tx_journal_request").execute();
  await db.schema.alterTable("tx_requests").dropColumn("sent_epoch").execute();
  await db.schema.alterTable("tx_journal").dropColumn("sender_epoch").execute();
  await db.schema.alterTable("tx_journal").dropColumn("sender").execute();
}
