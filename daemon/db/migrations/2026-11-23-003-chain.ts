// Frozen in time: never import application code here, never edit after release; add a new file.
// Chain module: operator transaction journal, indexer cursor, vaults, vault events.
// Times in seconds, money as TEXT of integer base units, booleans as INTEGER 0/1.
import { sql, type Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("tx_journal")
    .addColumn("id", "integer", (c) => c.primaryKey().autoIncrement())
    .addColumn("chain", "text", (c) => c.notNull())
    .addColumn("hash", "text", (c) => c.notNull().unique())
    .addColumn("nonce", "integer", (c) => c.notNull())
    .addColumn("raw", "text", (c) => c.notNull())
    .addColumn("purpose", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("replaces", "integer", (c) => c.references("tx_journal.id"))
    .addColumn("block_number", "integer")
    .addColumn("block_time", "integer")
    .addColumn("created_at", "integer", (c) => c.notNull())
    .addColumn("updated_at", "integer", (c) => c.notNull())
    .addColumn("error", "text")
    .execute();
  await db.schema.createIndex("tx_journal_status").on("tx_journal").columns(["chain", "status", "nonce"]).execute();
  await db.schema.createIndex("tx_journal_block").on("tx_journal").columns(["chain", "block_number", "nonce"]).execute();

  await db.schema
    .createTable("chain_cursor")
    .addColumn("name", "text", (c) => c.primaryKey())
    .addColumn("block", "integer", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("vaults")
    .addColumn("address", "text", (c) => c.primaryKey())
    .addColumn("factory", "text", (c) => c.notNull())
    .addColumn("investor", "text", (c) => c.notNull())
    .addColumn("trader", "text", (c) => c.notNull())
    .addColumn("exchange_account", "text", (c) => c.notNull())
    .addColumn("initial_balance", "text", (c) => c.notNull())
    .addColumn("max_drawdown_bps", "integer", (c) => c.notNull())
    .addColumn("daily_drawdown_bps", "integer", (c) => c.notNull())
    .addColumn("deal_deadline", "integer", (c) => c.notNull())
    .addColumn("trader_share_bps", "integer", (c) => c.notNull())
    .addColumn("terms_hash", "text", (c) => c.notNull().unique())
    .addColumn("salt", "text", (c) => c.notNull())
    .addColumn("created_block", "integer", (c) => c.notNull())
    .addColumn("created_tx", "text", (c) => c.notNull())
    .addColumn("created_at", "integer", (c) => c.notNull())
    .addColumn("current_balance", "text", (c) => c.notNull())
    .addColumn("peak_balance", "text", (c) => c.notNull())
    .addColumn("day_start_balance", "text", (c) => c.notNull())
    .addColumn("last_observed_at", "integer")
    .addColumn("paused", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("pause_reason", "integer")
    .addColumn("pause_pos", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("closed", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("closed_at", "integer")
    .addColumn("final_balance", "text")
    .addColumn("profit", "text")
    .addColumn("trader_share", "text")
    .addColumn("investor_share", "text")
    .addColumn("funded_total", "text", (c) => c.notNull().defaultTo("0"))
    .addColumn("paid_trader", "text", (c) => c.notNull().defaultTo("0"))
    .addColumn("paid_investor", "text", (c) => c.notNull().defaultTo("0"))
    .addColumn("event_count", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("updated_at", "integer", (c) => c.notNull())
    .execute();
  // "vaults where investor = ? or trader = ?": SQLite answers an OR of two indexed columns with both indexes.
  await db.schema.createIndex("vaults_investor").on("vaults").columns(["investor", "created_at"]).execute();
  await db.schema.createIndex("vaults_trader").on("vaults").columns(["trader", "created_at"]).execute();
  await db.schema
    .createIndex("vaults_active")
    .on("vaults")
    .columns(["exchange_account", "address"])
    .where(sql.ref("closed"), "=", 0)
    .execute();

  await db.schema
    .createTable("vault_events")
    .addColumn("id", "integer", (c) => c.primaryKey().autoIncrement())
    .addColumn("vault", "text", (c) => c.notNull().references("vaults.address"))
    .addColumn("seq", "integer", (c) => c.notNull())
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("tx_hash", "text")
    .addColumn("log_index", "integer")
    .addColumn("block_number", "integer")
    .addColumn("time", "integer", (c) => c.notNull())
    .addColumn("data", "text", (c) => c.notNull())
    .addUniqueConstraint("vault_events_log", ["tx_hash", "log_index"])
    .execute();
  await db.schema.createIndex("vault_events_vault").on("vault_events").columns(["vault", "id"]).execute();
  await db.schema.createIndex("vault_events_seq").on("vault_events").columns(["vault", "seq"]).unique().execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("vault_events").execute();
  await db.schema.dropTable("vaults").execute();
  await db.schema.dropTable("chain_cursor").execute();
  await db.schema.dropTable("tx_journal").execute();
}
