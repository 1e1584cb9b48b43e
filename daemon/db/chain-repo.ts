// The operator's transaction journal and the indexer's cursors.
import { deflateRawSync, inflateRawSync } from "node:zlib";
import type { Insertable, Selectable } from "kysely";
import type { Executor } from "./store.js";
import type { ChainSnapshotRow, NewChainSnapshot, NewTxJournal, TxJournalRow, TxJournalTable, TxRequestRow, TxRequestsTable, TxStatus } from "./schema-chain.js";

// A signed transaction is kept deflated: an oracle batch is mostly the zero padding of its ABI words,
// and its journal row would otherwise be a third of the database's growth per cycle.
const packRaw = (hex: string): Buffer => deflateRawSync(Buffer.from(hex.slice(2), "hex"));
const unpackRaw = (raw: string | Buffer): string => (typeof raw === "string" ? raw : `0x${inflateRawSync(raw).toString("hex")}`);
const journalRow = (r: Selectable<TxJournalTable>): TxJournalRow => ({ ...r, raw: unpackRaw(r.raw) });
const journalRows = (rows: Selectable<TxJournalTable>[]): TxJournalRow[] => rows.map(journalRow);

export async function insertJournal(db: Executor, row: NewTxJournal): Promise<TxJournalRow> {
  return journalRow(await db.insertInto("tx_journal").values({ ...row, raw: packRaw(row.raw) }).returningAll().executeTakeFirstOrThrow());
}

export interface JournalUpdate {
  status: TxStatus;
  block_number?: number | null;
  block_time?: number | null;
  error?: string | null;
}

export async function updateJournal(db: Executor, id: number, set: JournalUpdate, now: number): Promise<void> {
  await db.updateTable("tx_journal").set({ ...set, updated_at: now }).where("id", "=", id).execute();
}

/** Marks every other unsettled row of `nonce` replaced (the one with `keepId` was mined). */
export async function markReplaced(db: Executor, chain: string, nonce: number, keepId: number, now: number): Promise<void> {
  await db.updateTable("tx_journal")
    .set({ status: "replaced", updated_at: now })
    .where("chain", "=", chain)
    .where("nonce", "=", nonce)
    .where("id", "!=", keepId)
    .where("status", "in", ["pending", "sent"])
    .execute();
}

/** Rows signed but not settled (pending or sent), oldest nonce first, bumps after their original. */
export async function unsettledJournal(db: Executor, chain: string): Promise<TxJournalRow[]> {
  return journalRows(await db.selectFrom("tx_journal").selectAll()
    .where("chain", "=", chain)
    .where("status", "in", ["pending", "sent"])
    .orderBy("nonce").orderBy("id")
    .execute());
}

/** Every row of `chain` from `nonce` on, nonce order (attempts of one nonce by id): what a replay after a snapshot reads. */
export async function journalFromNonce(db: Executor, chain: string, nonce: number): Promise<TxJournalRow[]> {
  return journalRows(await db.selectFrom("tx_journal").selectAll()
    .where("chain", "=", chain).where("nonce", ">=", nonce)
    .orderBy("nonce").orderBy("id")
    .execute());
}

/** The chain's first journal row (the operator that signed the journal). */
export async function firstJournalRow(db: Executor, chain: string): Promise<TxJournalRow | undefined> {
  const r = await db.selectFrom("tx_journal").selectAll().where("chain", "=", chain).orderBy("id").limit(1).executeTakeFirst();
  return r && journalRow(r);
}

/** The newest journal row below `nonce`: the last entry a snapshot at that nonce includes. */
export async function lastJournalIdBelow(db: Executor, chain: string, nonce: number): Promise<number | null> {
  const row = await db.selectFrom("tx_journal").select("id")
    .where("chain", "=", chain).where("nonce", "<", nonce)
    .orderBy("nonce", "desc").orderBy("id", "desc").limit(1)
    .executeTakeFirst();
  return row?.id ?? null;
}

/** The highest block any journal row was mined in. */
export async function lastJournalBlock(db: Executor, chain: string): Promise<number> {
  const row = await db.selectFrom("tx_journal").select((eb) => eb.fn.max("block_number").as("block"))
    .where("chain", "=", chain).executeTakeFirst();
  return Number(row?.block ?? 0);
}

export async function insertSnapshot(db: Executor, row: NewChainSnapshot): Promise<void> {
  // The file name carries the content's hash: the same name is the same snapshot, recorded once.
  await db.insertInto("chain_snapshots").values(row).onConflict((oc) => oc.column("file").doNothing()).execute();
}

/** Newest first. */
export function snapshotsOf(db: Executor, chain: string): Promise<ChainSnapshotRow[]> {
  return db.selectFrom("chain_snapshots").selectAll().where("chain", "=", chain).orderBy("id", "desc").execute();
}

export async function deleteSnapshot(db: Executor, id: number): Promise<void> {
  await db.deleteFrom("chain_snapshots").where("id", "=", id).execute();
}

export async function journalByPurpose(db: Executor, chain: string, purpose: string): Promise<TxJournalRow | undefined> {
  const r = await db.selectFrom("tx_journal").selectAll()
    .where("chain", "=", chain).where("purpose", "=", purpose).where("status", "=", "confirmed")
    .orderBy("id").limit(1)
    .executeTakeFirst();
  return r && journalRow(r);
}

export async function getCursor(db: Executor, name: string): Promise<number | undefined> {
  return (await db.selectFrom("chain_cursor").select("block").where("name", "=", name).executeTakeFirst())?.block;
}

export async function advanceCursor(db: Executor, name: string, block: number): Promise<void> {
  await db.insertInto("chain_cursor")
    .values({ name, block })
    // Never backwards: two daemons' indexers overlap for a moment when the sending moves.
    .onConflict((oc) => oc.column("name").doUpdateSet({ block }).where("chain_cursor.block", "<", block))
    .execute();
}

/** How many journal rows of one chain are in each status (statuses with no row are absent). */
export function countJournalByStatus(db: Executor, chain: string): Promise<Array<{ key: string; n: number }>> {
  return db.selectFrom("tx_journal").select(["status as key", (eb) => eb.fn.countAll<number>().as("n")])
    .where("chain", "=", chain).groupBy("status").execute();
}

// ---- operator transactions handed to the daemon that sends them ----

export async function insertTxRequest(db: Executor, row: Insertable<TxRequestsTable>): Promise<void> {
  await db.insertInto("tx_requests").values(row).execute();
}

export function findTxRequest(db: Executor, id: string): Promise<TxRequestRow | undefined> {
  return db.selectFrom("tx_requests").selectAll().where("id", "=", id).executeTakeFirst();
}

/** Requests in `status`, oldest first. */
export function txRequestsIn(db: Executor, status: "queued" | "claimed", limit: number): Promise<TxRequestRow[]> {
  return db.selectFrom("tx_requests").selectAll().where("status", "=", status).orderBy("created_at").orderBy("id").limit(limit).execute();
}

/**
 * Moves a request from one status to another; false when it was not in `from` (someone else moved
 * it), or, with `epoch`, was not claimed under that epoch of the sender's lease.
 */
export async function moveTxRequest(
  db: Executor, id: string, from: string, set: Partial<Omit<TxRequestRow, "id">> & { status: string; updated_at: number }, epoch?: number,
): Promise<boolean> {
  let q = db.updateTable("tx_requests").set(set).where("id", "=", id).where("status", "=", from);
  if (epoch !== undefined) q = q.where("sent_epoch", "=", epoch);
  return (await q.returning("id").executeTakeFirst()) !== undefined;
}

/** Whether the request is claimed under `epoch`; the row stays locked until the caller's transaction ends. */
export async function requestClaimedBy(trx: Executor, id: string, epoch: number): Promise<boolean> {
  const row = await trx.selectFrom("tx_requests").select("id")
    .where("id", "=", id).where("status", "=", "claimed").where("sent_epoch", "=", epoch)
    .forUpdate().executeTakeFirst();
  return row !== undefined;
}

/** Whether a journal row of the request was signed other than under `epoch` (by an earlier sender, or alone). */
export async function requestSignedOutside(db: Executor, id: string, epoch: number): Promise<boolean> {
  const row = await db.selectFrom("tx_journal").select("id").where("request_id", "=", id)
    .where((eb) => eb.or([eb("sender_epoch", "is", null), eb("sender_epoch", "!=", epoch)]))
    .limit(1).executeTakeFirst();
  return row !== undefined;
}

/** Settled requests older than `before`: their answers were read long ago. */
export async function pruneTxRequests(db: Executor, before: number): Promise<void> {
  await db.deleteFrom("tx_requests").where("status", "in", ["sent", "failed", "abandoned"]).where("updated_at", "<", before).execute();
}

/** The first journal row a request was signed into, if it was. */
export async function journalOfRequest(db: Executor, chain: string, requestId: string): Promise<TxJournalRow | undefined> {
  const r = await db.selectFrom("tx_journal").selectAll().where("chain", "=", chain).where("request_id", "=", requestId).orderBy("id").executeTakeFirst();
  return r && journalRow(r);
}

/** Every attempt at one nonce, oldest first: mined, still in flight, or all given up. */
export async function attemptsAt(db: Executor, chain: string, nonce: number): Promise<TxJournalRow[]> {
  return journalRows(await db.selectFrom("tx_journal").selectAll().where("chain", "=", chain).where("nonce", "=", nonce).orderBy("id").execute());
}

export async function readDeploymentRow(db: Executor, key: string): Promise<string | undefined> {
  return (await db.selectFrom("deployments").select("record").where("key", "=", key).executeTakeFirst())?.record;
}

export async function writeDeploymentRow(db: Executor, key: string, record: string): Promise<void> {
  await db.insertInto("deployments").values({ key, record }).onConflict((oc) => oc.column("key").doUpdateSet({ record })).execute();
}
