// Frozen in time: never import application code here, never edit after release; add a new file.
// Snapshots of the embedded chain's state, taken by the daemon (files in <dataDir>/chain/snapshots/).
// A row is written only after its file is durable; a backup copies the newest file its database names.
import type { Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("chain_snapshots")
    .addColumn("id", "integer", (c) => c.primaryKey().autoIncrement())
    .addColumn("chain", "text", (c) => c.notNull())
    // Relative to <dataDir>/chain/snapshots/.
    .addColumn("file", "text", (c) => c.notNull().unique())
    // The operator's nonce in the snapshot: it holds every operator transaction below it.
    .addColumn("operator_nonce", "integer", (c) => c.notNull())
    // tx_journal.id of the newest journal entry the snapshot includes (null: none yet).
    .addColumn("journal_id", "integer")
    .addColumn("height", "integer", (c) => c.notNull())
    .addColumn("bytes", "integer", (c) => c.notNull())
    .addColumn("sha256", "text", (c) => c.notNull())
    .addColumn("anvil_version", "text", (c) => c.notNull())
    .addColumn("created_at", "integer", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("chain_snapshots_chain").on("chain_snapshots").columns(["chain", "id"]).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("chain_snapshots").execute();
}
