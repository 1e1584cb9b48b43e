// Vault trades (SPEC 2.12): fills of a vault's exchange account, keyed by (account, fill id) so a
// fill is never counted twice, with a dense per-vault sequence so every page is an index range.
import { sql, type CompiledQuery } from "kysely";
import type { VaultTradeRow } from "./schema.js";
import { lockName } from "./name-lock.js";
import type { Executor } from "./store.js";

export interface NewFill {
  tid: number;
  oid: number;
  symbol: string;
  side: "buy" | "sell";
  size: string;
  price: string;
  pnl: string;
  fee: string;
  timeMs: number;
}

/** The vault's last trade: one probe of the (vault, seq) index (raw SQL: it runs once per batch of fills). */
export async function lastSeq(db: Executor, vault: string): Promise<{ seq: number; timeMs: number }> {
  const { rows } = await sql<{ seq: number; time_ms: number }>`select seq, time_ms from vault_trades where vault = ${vault} order by seq desc limit 1`.execute(db);
  const row = rows[0];
  return { seq: row ? Number(row.seq) : 0, timeMs: row ? Number(row.time_ms) : 0 };
}

/**
 * Rows per INSERT at most. A batch up to this size is one statement of exactly its size: at most this
 * many statement texts, each compiled and prepared once (the SQLite store's statement cache holds
 * them), and one trip through the executor per batch (cutting 100 fills into 64 + 32 + 4 cost two
 * more trips than the rows' own inserts were worth; bench audit-write).
 */
const MAX_ROWS_PER_INSERT = 128;

/** Time order, and each fill once (the exchange may repeat one inside a page). */
function inOrder(fills: NewFill[]): NewFill[] {
  const seen = new Set<number>();
  return [...fills].sort((a, b) => a.timeMs - b.timeMs || a.tid - b.tid).filter((f) => {
    if (seen.has(f.tid)) return false;
    seen.add(f.tid);
    return true;
  });
}

function* chunks<T>(items: T[]): Generator<T[]> {
  for (let i = 0; i < items.length; i += MAX_ROWS_PER_INSERT) yield items.slice(i, i + MAX_ROWS_PER_INSERT);
}

type TradeValues = Omit<VaultTradeRow, "id">;

// Key order here is the column order of the compiled INSERT, and the order appendFills binds them in.
const tradeValues = (vault: string, account: string, f: NewFill, seq: number): TradeValues => ({
  vault, seq, account, tid: f.tid, oid: f.oid, symbol: f.symbol, side: f.side,
  size: f.size, price: f.price, pnl: f.pnl, fee: f.fee, time_ms: f.timeMs,
});

function insertTrades(db: Executor, rows: TradeValues[], returning: boolean) {
  const insert = db.insertInto("vault_trades").values(rows).onConflict((oc) => oc.columns(["account", "tid"]).doNothing());
  return returning ? insert.returning(["id", "seq"]) : insert;
}

interface Inserter {
  /** SQLite: no RETURNING (building a result row per fill cost as much as the insert); the ids come from the row count and the last rowid. */
  sqlite: boolean;
  compiled(n: number): CompiledQuery;
}

/**
 * The INSERT of `n` rows, compiled once per dialect: building and compiling kysely's tree cost 2-4 µs
 * per row, as much as SQLite's insert. A tiny query's text (it shows the dialect's placeholders) tells
 * the dialects apart for a few µs.
 */
const compiledInserts = new Map<string, CompiledQuery>();
function inserter(db: Executor, sample: TradeValues): Inserter {
  const dialect = sql`select ${0}`.compile(db).sql;
  const sqlite = dialect.endsWith("?");
  return {
    sqlite,
    compiled(n) {
      const key = `${dialect}|${n}`;
      let query = compiledInserts.get(key);
      if (!query) {
        query = insertTrades(db, Array.from({ length: n }, () => sample), !sqlite).compile();
        compiledInserts.set(key, query);
      }
      return query;
    },
  };
}

/** The ids and seqs a chunk's INSERT added. */
async function insertChunk(db: Executor, ins: Inserter, chunk: TradeValues[]): Promise<Array<{ id: number; seq: number }>> {
  const parameters: unknown[] = [];
  for (const v of chunk) parameters.push(v.vault, v.seq, v.account, v.tid, v.oid, v.symbol, v.side, v.size, v.price, v.pnl, v.fee, v.time_ms);
  const r = await db.executeQuery<{ id: number; seq: number }>({ ...ins.compiled(chunk.length), parameters });
  if (!ins.sqlite) return r.rows;
  // Every row went in: one statement in one write transaction takes consecutive rowids, in VALUES order.
  if (Number(r.numAffectedRows) === chunk.length) {
    const first = Number(r.insertId) - chunk.length + 1;
    return chunk.map((v, i) => ({ id: first + i, seq: v.seq }));
  }
  // Some were known: the new rows are those holding this chunk's sequence numbers (a known fill kept its own).
  return db.selectFrom("vault_trades").select(["id", "seq"])
    .where("vault", "=", chunk[0]!.vault).where("seq", ">=", chunk[0]!.seq).where("seq", "<=", chunk[chunk.length - 1]!.seq)
    .execute();
}

/**
 * Appends fills in time order, skipping ones already recorded; call inside a unit of work (the
 * vault's sequence is locked until it commits, so two writers never number fills alike).
 * Multi-row INSERTs with `ON CONFLICT (account, tid) DO NOTHING RETURNING id, seq`: one statement
 * per chunk rather than one per fill (each statement's trip through kysely's async executor cost
 * more than SQLite's insert), returning two columns rather than every one (SQLite spends longer
 * building a full row than inserting it). Each fill is numbered up front; a known fill skipped by the
 * conflict clause leaves a gap, which the rows after it close by moving down.
 */
export async function appendFills(db: Executor, vault: string, account: string, fills: NewFill[]): Promise<VaultTradeRow[]> {
  const ordered = inOrder(fills);
  if (ordered.length === 0) return [];
  await lockName(db, `vault_trades:${vault}`);
  const { seq: last } = await lastSeq(db, vault);
  const values = ordered.map((f, i) => tradeValues(vault, account, f, last + 1 + i));
  const ins = inserter(db, values[0]!);
  const added: VaultTradeRow[] = [];
  for (const chunk of chunks(values)) {
    for (const r of await insertChunk(db, ins, chunk)) added.push({ id: r.id, ...values[r.seq - last - 1]! });
  }
  // RETURNING's row order is not promised; ascending moves never collide (each target is free).
  added.sort((a, b) => a.seq - b.seq);
  for (const [i, row] of added.entries()) {
    if (row.seq === last + 1 + i) continue;
    row.seq = last + 1 + i;
    await db.updateTable("vault_trades").set({ seq: row.seq }).where("id", "=", row.id).execute();
  }
  return added;
}

export interface TradePage {
  rows: VaultTradeRow[];
  total: number;
}

/**
 * The sequence range [lo, hi] of the vault's trades within the dates (Unix ms): [1, last] without
 * dates, else found with two index probes on (vault, time_ms, seq). Empty when lo > hi.
 */
export async function tradeSeqRange(db: Executor, vault: string, opts: { startMs?: number; endMs?: number }): Promise<{ lo: number; hi: number }> {
  let lo = 1;
  let hi = (await lastSeq(db, vault)).seq;
  if (opts.startMs !== undefined) {
    const first = await db.selectFrom("vault_trades").select("seq").where("vault", "=", vault).where("time_ms", ">=", opts.startMs)
      .orderBy("time_ms").orderBy("seq").limit(1).executeTakeFirst();
    lo = first?.seq ?? hi + 1;
  }
  if (opts.endMs !== undefined) {
    const last = await db.selectFrom("vault_trades").select("seq").where("vault", "=", vault).where("time_ms", "<=", opts.endMs)
      .orderBy("time_ms", "desc").orderBy("seq", "desc").limit(1).executeTakeFirst();
    hi = Math.min(hi, last?.seq ?? 0);
  }
  return { lo, hi };
}

/** The trades with seq in [bottom, top], newest first: one index range. */
export function tradesBetween(db: Executor, vault: string, bottom: number, top: number): Promise<VaultTradeRow[]> {
  return db.selectFrom("vault_trades").selectAll().where("vault", "=", vault).where("seq", ">=", bottom).where("seq", "<=", top)
    .orderBy("seq", "desc").execute();
}

/** Newest first; the page is a range of seq (tradeSeqRange): no scan, no COUNT. */
export async function tradePage(
  db: Executor,
  vault: string,
  opts: { limit: number; offset: number; startMs?: number; endMs?: number },
): Promise<TradePage> {
  const { lo, hi } = await tradeSeqRange(db, vault, opts);
  const total = Math.max(0, hi - lo + 1);
  const top = hi - opts.offset;
  const bottom = Math.max(lo, top - opts.limit + 1);
  if (total === 0 || top < lo) return { rows: [], total };
  return { rows: await tradesBetween(db, vault, bottom, top), total };
}
