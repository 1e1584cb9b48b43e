// Frozen in time: never import application code here, never edit after release; add a new file.
// Vault events in fewer bytes. Every oracle cycle adds one BalanceUpdated row per vault, kept for
// good as the audit trail, so a row's size is the database's growth: the vault's address (42 bytes)
// and the transaction hash (66) were repeated in the row and in three indexes. Now a vault has a
// small number (vaults.num) and a transaction hash is stored once (chain_txs); the table is rebuilt
// with the same ids (SSE clients resume from them) and the same per-vault sequences.
import { sql, type Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("vaults").addColumn("num", "integer").execute();
  // rowid order is insertion order: existing vaults keep that order in their numbers.
  await sql`update vaults set num = rowid`.execute(db);
  await db.schema.createIndex("vaults_num").on("vaults").column("num").unique().execute();

  await db.schema
    .createTable("chain_txs")
    .addColumn("id", "integer", (c) => c.primaryKey())
    .addColumn("hash", "text", (c) => c.notNull().unique())
    .execute();
  await sql`insert into chain_txs (hash) select distinct tx_hash from vault_events where tx_hash is not null order by id`.execute(db);

  await db.schema
    .createTable("vault_events_compact")
    // AUTOINCREMENT: an id is never reused, even after the newest row is deleted.
    .addColumn("id", "integer", (c) => c.primaryKey().autoIncrement())
    .addColumn("vault_num", "integer", (c) => c.notNull().references("vaults.num"))
    .addColumn("seq", "integer", (c) => c.notNull())
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("tx", "integer", (c) => c.references("chain_txs.id"))
    .addColumn("log_index", "integer")
    .addColumn("block_number", "integer")
    .addColumn("time", "integer", (c) => c.notNull())
    .addColumn("data", "text", (c) => c.notNull())
    .execute();
  await sql`
    insert into vault_events_compact (id, vault_num, seq, type, tx, log_index, block_number, time, data)
    select e.id, v.num, e.seq, e.type, t.id, e.log_index, e.block_number, e.time, e.data
    from vault_events e join vaults v on v.address = e.vault left join chain_txs t on t.hash = e.tx_hash
    order by e.id`.execute(db);
  await db.schema.dropTable("vault_events").execute();
  await db.schema.alterTable("vault_events_compact").renameTo("vault_events").execute();
  await db.schema.createIndex("vault_events_log").on("vault_events").columns(["tx", "log_index"]).unique().execute();
  await db.schema.createIndex("vault_events_seq").on("vault_events").columns(["vault_num", "seq"]).unique().execute();
  await db.schema.createIndex("vault_events_vault").on("vault_events").columns(["vault_num", "id"]).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  // Readings written since this migration carry their fields in order (db/event-data.ts, version 1).
  await sql`
    update vault_events set data = json_object(
      'balance', json_extract(data, '$[0]'), 'peakBalance', json_extract(data, '$[1]'),
      'dayStartBalance', json_extract(data, '$[2]'), 'observedAt', json_extract(data, '$[3]'),
      'drawdownBps', json_extract(data, '$[4]'), 'dailyDrawdownBps', json_extract(data, '$[5]'))
    where type = 'BalanceUpdated' and data like '[%'`.execute(db);
  await db.schema
    .createTable("vault_events_wide")
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
  await sql`
    insert into vault_events_wide (id, vault, seq, type, tx_hash, log_index, block_number, time, data)
    select e.id, v.address, e.seq, e.type, t.hash, e.log_index, e.block_number, e.time, e.data
    from vault_events e join vaults v on v.num = e.vault_num left join chain_txs t on t.id = e.tx
    order by e.id`.execute(db);
  await db.schema.dropTable("vault_events").execute();
  await db.schema.alterTable("vault_events_wide").renameTo("vault_events").execute();
  await db.schema.createIndex("vault_events_vault").on("vault_events").columns(["vault", "id"]).execute();
  await db.schema.createIndex("vault_events_seq").on("vault_events").columns(["vault", "seq"]).unique().execute();
  await db.schema.dropTable("chain_txs").execute();
  await db.schema.dropIndex("vaults_num").execute();
  await db.schema.alterTable("vaults").dropColumn("num").execute();
}
