// A call's chain events stored together (vault-events.ts applyChainEvents): the involved vault rows
// locked and read, the new events inserted with their seqs, the vaults' new state written, in a few
// statements whatever the number of vaults (an oracle receipt holds one event per vault; on
// PostgreSQL each statement is a round trip, bench oracle-scale-shared).
import { sql } from "kysely";
import { chunks, onPostgres } from "./batches.js";
import { packEventData } from "./event-data.js";
import { EVENTS_CHANNEL, notifyAtCommit } from "./notices.js";
import type { Executor } from "./store.js";
import type { VaultEventRow, VaultRow } from "./schema-chain.js";
import type { NewEvent, VaultChange } from "./vaults-repo.js";

/**
 * Vault event ids must commit in id order: an SSE reader on any daemon asks for `id > last`, and a
 * row that took a lower id but committed later would be skipped. On PostgreSQL a transaction takes
 * this lock just before it numbers events and holds it to its commit, so numbering and committing
 * run one transaction at a time, and only for transactions that store events; everything else
 * writes side by side. Taken after the vault rows' locks, never before. SQLite has one writer.
 */
const EVENT_IDS_LOCK = 0x7472_6465; // "trde"

export async function lockEventIds(db: Executor): Promise<void> {
  if (onPostgres(db)) await sql`select pg_advisory_xact_lock(${sql.lit(EVENT_IDS_LOCK)})`.execute(db);
}

/** A chain event to store: one with its transaction's hash and its log's index. */
export type NewChainEvent = NewEvent & { txHash: string; logIndex: number };

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
  await lockEventIds(db);
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

/** A daemon event numbered by the caller: `seq` follows the vault's event_count as read under lockVaults. */
export interface NumberedEvent {
  vault: VaultRow;
  seq: number;
  type: string;
  time: number;
  data: Record<string, unknown>;
}

/**
 * Stores daemon events (no transaction) the caller numbered, in one statement per thousand; the caller
 * writes each vault's event_count to its last seq in the same unit of work. Answers the rows in order.
 */
export async function insertNumberedEvents(db: Executor, items: readonly NumberedEvent[]): Promise<VaultEventRow[]> {
  if (items.length === 0) return [];
  const values = items.map((e) => ({
    vault_num: e.vault.num, seq: e.seq, type: e.type, tx: null, log_index: null, block_number: null, time: e.time, data: packEventData(e.type, e.data),
  }));
  const idOf = new Map<string, number>();
  await lockEventIds(db);
  for (const part of chunks(values)) {
    for (const r of await db.insertInto("vault_events").values(part).returning(["id", "vault_num", "seq"]).execute()) idOf.set(`${r.vault_num}:${r.seq}`, r.id);
  }
  await notifyAtCommit(db, EVENTS_CHANNEL, String([...idOf.values()].reduce((a, b) => Math.max(a, b))));
  return items.map((e, i) => ({
    id: idOf.get(`${e.vault.num}:${e.seq}`)!, vault: e.vault.address, seq: e.seq, type: e.type, tx_hash: null, log_index: null,
    block_number: null, time: e.time, data: values[i]!.data,
  }));
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
