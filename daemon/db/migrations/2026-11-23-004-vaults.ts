// Frozen in time: never import application code here, never edit after release; add a new file.
import type { Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("proposals")
    .addColumn("id", "integer", (c) => c.primaryKey().autoIncrement())
    .addColumn("created_by", "text", (c) => c.notNull())
    .addColumn("investor", "text", (c) => c.notNull())
    .addColumn("trader", "text", (c) => c.notNull())
    .addColumn("exchange_account", "text", (c) => c.notNull())
    .addColumn("initial_balance", "text", (c) => c.notNull()) // USDC base units (6 decimals)
    .addColumn("max_drawdown_bps", "integer", (c) => c.notNull())
    .addColumn("daily_drawdown_bps", "integer", (c) => c.notNull())
    .addColumn("deal_deadline", "integer", (c) => c.notNull())
    .addColumn("trader_share_bps", "integer", (c) => c.notNull())
    .addColumn("valid_until", "integer", (c) => c.notNull())
    .addColumn("salt", "text", (c) => c.notNull())
    .addColumn("chain_id", "integer", (c) => c.notNull())
    .addColumn("factory", "text", (c) => c.notNull())
    .addColumn("terms_hash", "text", (c) => c.notNull().unique())
    .addColumn("investor_signature", "text")
    .addColumn("trader_signature", "text")
    .addColumn("status", "text", (c) => c.notNull()) // PENDING | ACCEPTED | REJECTED | EXPIRED
    .addColumn("vault_address", "text")
    .addColumn("create_tx", "text")
    .addColumn("relay_error", "text")
    .addColumn("rejected_by", "text")
    .addColumn("created_at", "integer", (c) => c.notNull())
    .addColumn("updated_at", "integer", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("proposals_investor").on("proposals").columns(["investor", "id"]).execute();
  await db.schema.createIndex("proposals_trader").on("proposals").columns(["trader", "id"]).execute();
  await db.schema.createIndex("proposals_status").on("proposals").columns(["status", "valid_until"]).execute();

  await db.schema
    .createTable("vault_trades")
    .addColumn("id", "integer", (c) => c.primaryKey().autoIncrement())
    .addColumn("vault", "text", (c) => c.notNull())
    // Dense per-vault sequence (1, 2, 3...): any page at any offset is an index range, never a scan.
    .addColumn("seq", "integer", (c) => c.notNull())
    .addColumn("account", "text", (c) => c.notNull())
    .addColumn("tid", "integer", (c) => c.notNull()) // the exchange's fill id
    .addColumn("oid", "integer", (c) => c.notNull())
    .addColumn("symbol", "text", (c) => c.notNull())
    .addColumn("side", "text", (c) => c.notNull())
    .addColumn("size", "text", (c) => c.notNull())
    .addColumn("price", "text", (c) => c.notNull())
    .addColumn("pnl", "text", (c) => c.notNull()) // realized PnL of this fill
    .addColumn("fee", "text", (c) => c.notNull())
    .addColumn("time_ms", "integer", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("vault_trades_fill").on("vault_trades").columns(["account", "tid"]).unique().execute();
  await db.schema.createIndex("vault_trades_seq").on("vault_trades").columns(["vault", "seq"]).unique().execute();
  await db.schema.createIndex("vault_trades_time").on("vault_trades").columns(["vault", "time_ms", "seq"]).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("vault_trades").execute();
  await db.schema.dropTable("proposals").execute();
}
