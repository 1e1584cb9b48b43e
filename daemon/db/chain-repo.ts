// The operator's transaction journal and the indexer's cursors. Synchronous functions over the raw
// handle (db builds the SQL, x runs it), so the sender can write a journal row between signing and
// broadcasting without an await in between.
import type { Kysely } from "kysely";
import type { SyncExecutor } from "./database.js";
import type { Database } from "./schema.js";
import type { NewTxJournal, TxJournalRow, TxStatus } from "./schema-chain.js";

export function insertJournal(db: Kysely<Database>, x: SyncExecutor, row: NewTxJournal): TxJournalRow {
  return x.get(db.insertInto("tx_journal").values(row).returningAll().compile())!;
}

export interface JournalUpdate {
  status: TxStatus;
  block_number?: number | null;
  block_time?: number | null;
  error?: string | null;
}

export function updateJournal(db: Kysely<Database>, x: SyncExecutor, id: number, set: JournalUpdate, now: number): void {
  x.run(db.updateTable("tx_journal").set({ ...set, updated_at: now }).where("id", "=", id).compile());
}

/** Marks every other unsettled row of `nonce` replaced (the one with `keepId` was mined). */
export function markReplaced(db: Kysely<Database>, x: SyncExecutor, chain: string, nonce: number, keepId: number, now: number): void {
  x.run(
    db.updateTable("tx_journal")
      .set({ status: "replaced", updated_at: now })
      .where("chain", "=", chain)
      .where("nonce", "=", nonce)
      .where("id", "!=", keepId)
      .where("status", "in", ["pending", "sent"])
      .compile(),
  );
}

export function findJournalByHash(db: Kysely<Database>, x: SyncExecutor, hash: string): TxJournalRow | undefined {
  return x.get(db.selectFrom("tx_journal").selectAll().where("hash", "=", hash).compile());
}

/** Rows signed but not settled (pending or sent), oldest nonce first, bumps after their original. */
export function unsettledJournal(db: Kysely<Database>, x: SyncExecutor, chain: string): TxJournalRow[] {
  return x.all(
    db.selectFrom("tx_journal").selectAll()
      .where("chain", "=", chain)
      .where("status", "in", ["pending", "sent"])
      .orderBy("nonce").orderBy("id")
      .compile(),
  );
}

/** Every mined row of `chain` in chain order: what a rebuild of the embedded chain replays. */
export function minedJournal(db: Kysely<Database>, x: SyncExecutor, chain: string): TxJournalRow[] {
  return x.all(
    db.selectFrom("tx_journal").selectAll()
      .where("chain", "=", chain)
      .where("block_number", "is not", null)
      .orderBy("block_number").orderBy("nonce")
      .compile(),
  );
}

export function journalByPurpose(db: Kysely<Database>, x: SyncExecutor, chain: string, purpose: string): TxJournalRow | undefined {
  return x.get(
    db.selectFrom("tx_journal").selectAll()
      .where("chain", "=", chain).where("purpose", "=", purpose).where("status", "=", "confirmed")
      .orderBy("id").limit(1)
      .compile(),
  );
}

export function journalOf(db: Kysely<Database>, x: SyncExecutor, chain: string): TxJournalRow[] {
  return x.all(db.selectFrom("tx_journal").selectAll().where("chain", "=", chain).orderBy("id").compile());
}

export function getCursor(db: Kysely<Database>, x: SyncExecutor, name: string): number | undefined {
  return x.get(db.selectFrom("chain_cursor").select("block").where("name", "=", name).compile())?.block;
}

export function setCursor(db: Kysely<Database>, x: SyncExecutor, name: string, block: number): void {
  x.run(
    db.insertInto("chain_cursor")
      .values({ name, block })
      .onConflict((oc) => oc.column("name").doUpdateSet({ block }))
      .compile(),
  );
}
