// Vaults and their events: rows in, rows out. What an event does to a vault is the vault service's
// rule (vaults/vault-events.ts); this module only stores. Events are keyed by (tx hash, log index),
// so inserting the same chain event twice inserts nothing and reports nothing. The events table holds
// a vault's number and a transaction's id (migration 007); rows come out with address and hash.
// Numbers are allocated so that concurrent writers (PostgreSQL) never take the same one: see
// insertVault and insertEvent (and vault-events-repo.ts for many events at once, under row locks).
import { sql } from "kysely";
import { packEventData } from "./event-data.js";
import { lockName } from "./name-lock.js";
import { lockEventIds } from "./vault-events-repo.js";
import { EVENTS_CHANNEL, notifyAtCommit } from "./notices.js";
import type { Executor } from "./store.js";
import type { NewVault, VaultEventRow, VaultRow } from "./schema-chain.js";

/** Stores a new vault with the next number (call inside a unit of work); a known address is left as it is. */
export async function insertVault(db: Executor, row: NewVault): Promise<void> {
  await lockName(db, "vaults.num");
  await db.insertInto("vaults")
    .values({ ...row, num: sql<number>`(select coalesce(max(num), 0) + 1 from vaults)` })
    .onConflict((oc) => oc.column("address").doNothing())
    .execute();
}

/** Events joined back to their vault's address and their transaction's hash. */
const events = (db: Executor) =>
  db.selectFrom("vault_events as e")
    .innerJoin("vaults as v", "v.num", "e.vault_num")
    .leftJoin("chain_txs as t", "t.id", "e.tx")
    .select(["e.id", "v.address as vault", "e.seq", "e.type", "t.hash as tx_hash", "e.log_index", "e.block_number", "e.time", "e.data"]);

/** The id of a transaction hash, stored on first use: one statement (the no-op update makes the upsert return the row). */
async function txId(db: Executor, hash: string): Promise<number> {
  const row = await db.insertInto("chain_txs").values({ hash })
    .onConflict((oc) => oc.column("hash").doUpdateSet({ hash }))
    .returning("id")
    .executeTakeFirstOrThrow();
  return row.id;
}

export function findVault(db: Executor, address: string): Promise<VaultRow | undefined> {
  return db.selectFrom("vaults").selectAll().where("address", "=", address).executeTakeFirst();
}

export type VaultChange = Partial<Omit<VaultRow, "address">>;

export async function updateVault(db: Executor, address: string, set: VaultChange): Promise<void> {
  await db.updateTable("vaults").set(set).where("address", "=", address).execute();
}

export interface NewEvent {
  type: string;
  txHash: string | null;
  logIndex: number | null;
  blockNumber: number | null;
  time: number;
  data: Record<string, unknown>;
}

/**
 * Inserts the vault's next event; undefined when this chain event is stored already. Call inside a
 * unit of work. The sequence number comes from incrementing the vault's event_count in one statement,
 * which also locks the vault's row until commit: a concurrent writer of the same vault waits and then
 * counts from this one's number. A duplicate gives its number back, so the sequence stays dense.
 */
export async function insertEvent(db: Executor, v: VaultRow, e: NewEvent): Promise<VaultEventRow | undefined> {
  // sql, not an expression-builder callback: the callback cost a cycle of 1,000 vaults about 6% of its
  // time in kysely's parser (bench oracle-scale's profile).
  const counted = await db.updateTable("vaults").set({ event_count: sql<number>`event_count + 1` })
    .where("address", "=", v.address)
    .returning("event_count")
    .executeTakeFirstOrThrow();
  const values = {
    vault_num: v.num, seq: counted.event_count, type: e.type, tx: e.txHash === null ? null : await txId(db, e.txHash),
    log_index: e.logIndex, block_number: e.blockNumber, time: e.time, data: packEventData(e.type, e.data),
  };
  await lockEventIds(db);
  const row = await db.insertInto("vault_events").values(values)
    .onConflict((oc) => oc.columns(["tx", "log_index"]).doNothing())
    .returning("id")
    .executeTakeFirst();
  if (!row) {
    await db.updateTable("vaults").set({ event_count: sql<number>`event_count - 1` }).where("address", "=", v.address).execute();
    return undefined;
  }
  await notifyAtCommit(db, EVENTS_CHANNEL, String(row.id));
  return {
    id: row.id, vault: v.address, seq: values.seq, type: e.type, tx_hash: e.txHash, log_index: e.logIndex,
    block_number: e.blockNumber, time: e.time, data: values.data,
  };
}

/** Which of `addresses` are vaults the database knows. */
export async function knownVaults(db: Executor, addresses: string[]): Promise<Set<string>> {
  if (addresses.length === 0) return new Set();
  const rows = await db.selectFrom("vaults").select("address").where("address", "in", addresses).execute();
  return new Set(rows.map((r) => r.address));
}

/** Vaults where `party` is the investor or the trader, newest first. */
export function vaultsOfParty(db: Executor, party: string): Promise<VaultRow[]> {
  return db.selectFrom("vaults").selectAll()
    .where((eb) => eb.or([eb("investor", "=", party), eb("trader", "=", party)]))
    .orderBy("created_at", "desc").orderBy("address")
    .execute();
}

export const SUMMARY_COLUMNS = [
  "address", "investor", "trader", "initial_balance", "current_balance", "closed", "paused", "deal_deadline", "trader_share_bps",
  "peak_balance", "day_start_balance", "max_drawdown_bps", "daily_drawdown_bps",
] as const;
export type VaultSummaryRow = Pick<VaultRow, (typeof SUMMARY_COLUMNS)[number]>;

/** vaultsOfParty with only what a list shows. */
export function vaultSummariesOfParty(db: Executor, party: string): Promise<VaultSummaryRow[]> {
  return db.selectFrom("vaults").select(SUMMARY_COLUMNS)
    .where((eb) => eb.or([eb("investor", "=", party), eb("trader", "=", party)]))
    .orderBy("created_at", "desc").orderBy("address")
    .execute();
}

/** Vaults not closed (paused ones included: the oracle keeps reading them). */
export function activeVaults(db: Executor): Promise<VaultRow[]> {
  return db.selectFrom("vaults").selectAll().where("closed", "=", 0).orderBy("address").execute();
}

export function activeVaultFor(db: Executor, exchangeAccount: string): Promise<VaultRow | undefined> {
  return db.selectFrom("vaults").selectAll()
    .where("closed", "=", 0).where("exchange_account", "=", exchangeAccount)
    .executeTakeFirst();
}

/** When the account's closed vaults traded it (Unix seconds): its fills then were those vaults'. */
export async function closedVaultSpans(db: Executor, exchangeAccount: string): Promise<Array<{ from: number; to: number }>> {
  const rows = await db.selectFrom("vaults").select(["created_at", "closed_at"])
    .where("exchange_account", "=", exchangeAccount).where("closed", "=", 1).execute();
  return rows.map((r) => ({ from: Number(r.created_at), to: Number(r.closed_at ?? r.created_at) }));
}

/** Events with id > afterId of the given vaults, oldest first: what an SSE stream resumes with. */
export async function eventsAfter(db: Executor, vaults: string[], afterId: number, limit = 500): Promise<VaultEventRow[]> {
  if (vaults.length === 0) return [];
  const nums = (await db.selectFrom("vaults").select("num").where("address", "in", vaults).execute()).map((r) => r.num);
  if (nums.length === 0) return [];
  return events(db)
    .where("e.vault_num", "in", nums).where("e.id", ">", afterId)
    .orderBy("e.id").limit(limit)
    .execute();
}

/**
 * One page of a vault's events, newest first: without times (Unix seconds) a range of its dense
 * sequence; with them, the events in the times (counted: the vault's events are scanned once).
 */
export async function vaultEventsPage(
  db: Executor, vault: string, limit: number, offset: number, times: { startS?: number; endS?: number } = {},
): Promise<{ rows: VaultEventRow[]; total: number }> {
  if (times.startS !== undefined || times.endS !== undefined) return eventsInTimes(db, vault, limit, offset, times);
  const v = await db.selectFrom("vaults").select(["num", "event_count"]).where("address", "=", vault).executeTakeFirst();
  const total = v?.event_count ?? 0;
  const hi = total - offset;
  if (!v || hi <= 0) return { rows: [], total };
  const rows = await events(db)
    .where("e.vault_num", "=", v.num).where("e.seq", "<=", hi).where("e.seq", ">", hi - limit)
    .orderBy("e.seq", "desc")
    .execute();
  return { rows, total };
}

async function eventsInTimes(
  db: Executor, vault: string, limit: number, offset: number, times: { startS?: number; endS?: number },
): Promise<{ rows: VaultEventRow[]; total: number }> {
  const v = await db.selectFrom("vaults").select("num").where("address", "=", vault).executeTakeFirst();
  if (!v) return { rows: [], total: 0 };
  let count = db.selectFrom("vault_events").select((eb) => eb.fn.countAll<number>().as("n")).where("vault_num", "=", v.num);
  let q = events(db).where("e.vault_num", "=", v.num);
  if (times.startS !== undefined) {
    count = count.where("time", ">=", times.startS);
    q = q.where("e.time", ">=", times.startS);
  }
  if (times.endS !== undefined) {
    count = count.where("time", "<=", times.endS);
    q = q.where("e.time", "<=", times.endS);
  }
  const total = Number((await count.executeTakeFirst())?.n ?? 0);
  return { rows: await q.orderBy("e.seq", "desc").limit(limit).offset(offset).execute(), total };
}

/**
 * Up to `limit` of the vault's events with seq < beforeSeq, newest first, within the times (Unix
 * seconds) when given: an export's next page (keyset, so events stored meanwhile shift nothing).
 */
export async function vaultEventsBefore(
  db: Executor, vault: string, opts: { beforeSeq: number; limit: number; startS?: number; endS?: number },
): Promise<VaultEventRow[]> {
  const v = await db.selectFrom("vaults").select("num").where("address", "=", vault).executeTakeFirst();
  if (!v) return [];
  let q = events(db).where("e.vault_num", "=", v.num).where("e.seq", "<", opts.beforeSeq);
  if (opts.startS !== undefined) q = q.where("e.time", ">=", opts.startS);
  if (opts.endS !== undefined) q = q.where("e.time", "<=", opts.endS);
  return q.orderBy("e.seq", "desc").limit(opts.limit).execute();
}

/** The vault's number of events (its last seq). */
export async function eventCount(db: Executor, vault: string): Promise<number> {
  return (await db.selectFrom("vaults").select("event_count").where("address", "=", vault).executeTakeFirst())?.event_count ?? 0;
}

/** How many vaults per (paused, closed) pair. */
export function countVaultsByState(db: Executor): Promise<Array<{ paused: number; closed: number; n: number }>> {
  return db.selectFrom("vaults").select(["paused", "closed", (eb) => eb.fn.countAll<number>().as("n")]).groupBy(["paused", "closed"]).execute();
}

/** The oldest balance reading among open vaults, in seconds since the epoch; null with no open vault. */
export async function oldestOpenVaultReading(db: Executor): Promise<number | null> {
  const row = await db.selectFrom("vaults").select((eb) => eb.fn.min("last_observed_at").as("oldest")).where("closed", "=", 0).executeTakeFirst();
  return (row?.oldest as number | null | undefined) ?? null;
}

/** The newest stored event's id (0 with none). */
export async function lastEventId(db: Executor): Promise<number> {
  const row = await db.selectFrom("vault_events").select((eb) => eb.fn.max("id").as("id")).executeTakeFirst();
  return Number(row?.id ?? 0);
}

/** Events of every vault with id > afterId, oldest first: what a daemon sharing its database publishes. */
export function eventsAfterId(db: Executor, afterId: number, limit: number): Promise<VaultEventRow[]> {
  return events(db).where("e.id", ">", afterId).orderBy("e.id").limit(limit).execute();
}
