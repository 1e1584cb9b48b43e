// Vaults and their events: rows in, rows out. What an event does to a vault is the vault service's
// rule (vaults/vault-events.ts); this module only stores. Events are keyed by (tx hash, log index),
// so inserting the same chain event twice inserts nothing and reports nothing. The events table holds
// a vault's number and a transaction's id (migration 007); rows come out with address and hash.
// Numbers are allocated so that concurrent writers (PostgreSQL) never take the same one: see
// insertVault, insertEvent, and insertChainEvents (many events at once, under lockVaults' row locks).
import { PostgresAdapter, sql } from "kysely";
import { packEventData } from "./event-data.js";
import { lockSequence } from "./sequence-lock.js";
import { EVENTS_CHANNEL, notifyAtCommit } from "./notices.js";
import type { Executor } from "./store.js";
import type { NewVault, VaultEventRow, VaultRow } from "./schema-chain.js";

/** Stores a new vault with the next number (call inside a unit of work); a known address is left as it is. */
export async function insertVault(db: Executor, row: NewVault): Promise<void> {
  await lockSequence(db, "vaults.num");
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

/** A chain event to store: one with its transaction's hash and its log's index. */
export type NewChainEvent = NewEvent & { txHash: string; logIndex: number };

/** Rows per statement: far under either store's limit on bound parameters (SQLite 32,766; PostgreSQL 65,535). */
const CHUNK = 1_000;
const chunks = <T>(list: readonly T[]): T[][] =>
  Array.from({ length: Math.ceil(list.length / CHUNK) }, (_, i) => list.slice(i * CHUNK, (i + 1) * CHUNK));

const onPostgres = (db: Executor) => db.getExecutor().adapter instanceof PostgresAdapter;

/**
 * The rows of the known vaults among `addresses`, locked until commit: on PostgreSQL by FOR UPDATE, in
 * address order (byte order, the same in every chunk and every daemon), so two writers locking
 * overlapping sets cannot deadlock; on SQLite the write transaction is exclusive already, and its
 * dialect has no FOR UPDATE. What comes back was read under the lock: another writer's committed
 * change is in it, so a change computed from it undoes nothing.
 */
export async function lockVaults(db: Executor, addresses: readonly string[]): Promise<Map<string, VaultRow>> {
  const out = new Map<string, VaultRow>();
  const postgres = onPostgres(db);
  for (const part of chunks([...new Set(addresses)].sort())) {
    const q = db.selectFrom("vaults").selectAll().where("address", "in", part);
    const rows = postgres ? await q.orderBy(sql`address collate "C"`).forUpdate().execute() : await q.execute();
    for (const row of rows) out.set(row.address, row);
  }
  return out;
}

/** The ids of transaction hashes, each stored on first use (in hash order: two writers upserting the same hashes take their rows in one order). */
async function txIds(db: Executor, hashes: readonly string[]): Promise<Map<string, number>> {
  const ids = new Map<string, number>();
  for (const part of chunks([...new Set(hashes)].sort())) {
    const rows = await db.insertInto("chain_txs").values(part.map((hash) => ({ hash })))
      .onConflict((oc) => oc.column("hash").doUpdateSet({ hash: (eb) => eb.ref("excluded.hash") }))
      .returning(["id", "hash"])
      .execute();
    for (const r of rows) ids.set(r.hash, r.id);
  }
  return ids;
}

/** Which of the (tx, log index) pairs of `txs` are stored, as "tx:logIndex". */
async function storedLogs(db: Executor, txs: readonly number[]): Promise<Set<string>> {
  const stored = new Set<string>();
  for (const part of chunks(txs)) {
    const rows = await db.selectFrom("vault_events").select(["tx", "log_index"]).where("tx", "in", part).execute();
    for (const r of rows) stored.add(`${r.tx}:${r.log_index}`);
  }
  return stored;
}

/**
 * Stores the chain events of `items` not stored yet, in a few statements whatever their number, and
 * answers the new rows aligned with `items` (undefined for an event stored already or met earlier in
 * `items`). Call inside a unit of work, with each vault row read by lockVaults in it: each vault's new
 * events are numbered on from its event_count as read under the lock, so its sequence stays dense;
 * the caller then writes each vault's event_count (its last new seq) in the same unit of work
 * (updateVaults). One notice for the lot: listeners only wake and read the table.
 */
export async function insertChainEvents(db: Executor, items: ReadonlyArray<{ vault: VaultRow; event: NewChainEvent }>): Promise<Array<VaultEventRow | undefined>> {
  if (items.length === 0) return [];
  const ids = await txIds(db, items.map((i) => i.event.txHash));
  const seen = await storedLogs(db, [...new Set(ids.values())]);
  const last = new Map<string, number>();
  const fresh = items.map(({ vault: v, event: e }) => {
    const tx = ids.get(e.txHash)!;
    const key = `${tx}:${e.logIndex}`;
    if (seen.has(key)) return undefined;
    seen.add(key);
    const seq = (last.get(v.address) ?? v.event_count) + 1;
    last.set(v.address, seq);
    return {
      vault: v.address,
      values: {
        vault_num: v.num, seq, type: e.type, tx, log_index: e.logIndex, block_number: e.blockNumber, time: e.time,
        data: packEventData(e.type, e.data),
      },
    };
  });
  const values = fresh.flatMap((f) => (f ? [f.values] : []));
  if (values.length === 0) return fresh.map(() => undefined);
  // No ON CONFLICT: under the row locks no other writer stores these meanwhile, and if one did, the
  // unit of work fails rather than leave a gap in a sequence. Rows are matched back by (vault, seq),
  // unique: nothing here counts on RETURNING keeping the VALUES order.
  const idOf = new Map<string, number>();
  for (const part of chunks(values)) {
    for (const r of await db.insertInto("vault_events").values(part).returning(["id", "vault_num", "seq"]).execute()) idOf.set(`${r.vault_num}:${r.seq}`, r.id);
  }
  await notifyAtCommit(db, EVENTS_CHANNEL, String([...idOf.values()].reduce((a, b) => Math.max(a, b))));
  return fresh.map((f, i) => f && {
    id: idOf.get(`${f.values.vault_num}:${f.values.seq}`)!, vault: f.vault, seq: f.values.seq, type: f.values.type,
    tx_hash: items[i]!.event.txHash, log_index: f.values.log_index, block_number: f.values.block_number, time: f.values.time,
    data: f.values.data,
  });
}

/**
 * Writes each vault's change: one statement per set of changed columns (the rows travel as one JSON
 * parameter, so no list is too long for it), not one per vault. Call with rows locked by lockVaults.
 */
export async function updateVaults(db: Executor, changes: ReadonlyArray<VaultChange & { address: string }>): Promise<void> {
  const shapes = new Map<string, Array<VaultChange & { address: string }>>();
  for (const c of changes) {
    const key = Object.keys(c).filter((k) => k !== "address").sort().join(",");
    if (key === "") continue;
    const same = shapes.get(key);
    if (same) same.push(c);
    else shapes.set(key, [c]);
  }
  const postgres = onPostgres(db);
  for (const [key, rows] of shapes) {
    const columns = key.split(",");
    const set = sql.join(columns.map((c) => sql`${sql.id(c)} = d.${sql.id(c)}`));
    const json = JSON.stringify(rows);
    // PostgreSQL types each field by the vaults table's own row type; SQLite's ->> hands out a JSON
    // string as TEXT (money stays exact) and a number as INTEGER.
    const from = postgres
      ? sql`json_populate_recordset(null::vaults, ${json}::json)`
      : sql`(select ${sql.join(["address", ...columns].map((c) => sql`value ->> ${c} as ${sql.id(c)}`))} from json_each(${json}))`;
    await sql`update vaults set ${set} from ${from} as d where vaults.address = d.address`.execute(db);
  }
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
