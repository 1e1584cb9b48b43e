// The PostgreSQL database `tradevaultd migrate-store` fills: connected with one client (the copy is
// one transaction on it), brought to the daemon's schema by the same migrations the daemon runs,
// checked for rows, filled in batches, and its identity sequences moved past the copied ids.
import { Kysely, Migrator, PostgresDialect } from "kysely";
import pg from "pg";
import { postgresMigrations } from "../db/migrations/index.js";
import { AppError } from "../errors.js";
import { redactUrl } from "./database-url.js";
import { kindOf, toTarget, type Kind } from "./row-values.js";
import { quoteIdent, type SourceTable, type SourceValue } from "./sqlite-source.js";

/**
 * Every time limit off, whatever the database's or the role's defaults: the copy is one long
 * transaction, its checksums long statements (the daemon's own connections are timed).
 */
const UNTIMED = "-c idle_in_transaction_session_timeout=0 -c lock_timeout=0 -c statement_timeout=0";

/** Parameters per INSERT statement (PostgreSQL allows 65 535): a few hundred rows of the widest table. */
const BATCH_PARAMS = 10_000;

export async function connectTarget(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url, options: UNTIMED });
  // A connection that breaks between queries is reported by the next query; without a listener the
  // error event would end the process first.
  client.on("error", () => undefined);
  try {
    await client.connect();
    return client;
  } catch (e) {
    await client.end().catch(() => undefined);
    throw new AppError("SERVICE_UNAVAILABLE", `cannot connect to ${redactUrl(url)}: ${(e as Error).message}`, { cause: e });
  }
}

/** Brings the target to the schema a daemon on it expects, with the daemon's own PostgreSQL migrations. */
export async function migrateTarget(url: string): Promise<void> {
  const db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, options: UNTIMED, max: 1 }) }) });
  try {
    const { error, results } = await new Migrator({ db, provider: { getMigrations: async () => postgresMigrations } }).migrateToLatest();
    const failed = results?.find((r) => r.status === "Error");
    if (error || failed) {
      throw new AppError("INTERNAL", `cannot bring ${redactUrl(url)} to the daemon's schema${failed ? ` (at ${failed.migrationName})` : ""}: ${String(error)}`, { cause: error });
    }
  } finally {
    await db.destroy();
  }
}

/** Each table's column kinds, for the tables of the daemon's schema the target has. */
export async function columnKinds(client: pg.ClientBase, tables: readonly string[]): Promise<Map<string, Map<string, Kind>>> {
  const { rows } = await client.query<{ table: string; column: string; type: string }>(
    `select table_name as table, column_name as column, data_type as type from information_schema.columns
     where table_schema = current_schema() and table_name = any($1)`, [tables]);
  const out = new Map<string, Map<string, Kind>>();
  for (const r of rows) {
    if (!out.has(r.table)) out.set(r.table, new Map());
    out.get(r.table)!.set(r.column, kindOf(r.type));
  }
  return out;
}

/** The tables among `tables` that hold at least one row (a table the target lacks holds none). */
export async function tablesWithRows(client: pg.ClientBase, tables: readonly string[]): Promise<string[]> {
  const present = (await columnKinds(client, tables)).keys();
  const out: string[] = [];
  for (const t of present) {
    const { rows } = await client.query<{ some: boolean }>(`select exists (select 1 from ${quoteIdent(t)}) as some`);
    if (rows[0]!.some) out.push(t);
  }
  return out.sort();
}

/** The target's columns of `table`, every one of which the source's table must match by name. */
export function targetColumns(kinds: Map<string, Map<string, Kind>>, table: SourceTable): Map<string, Kind> {
  const cols = kinds.get(table.name);
  if (!cols) throw new AppError("INTERNAL", `the target has no table ${table.name} after its migrations; the two schemas differ`);
  const missing = table.columns.filter((c) => !cols.has(c));
  if (missing.length > 0) throw new AppError("INTERNAL", `the target's ${table.name} has no column ${missing.join(", ")}; the two schemas differ`);
  return cols;
}

/** Inserts the rows in batches of one multi-row INSERT each; returns how many. */
export async function insertRows(client: pg.ClientBase, table: SourceTable, kinds: Map<string, Kind>, rows: Iterable<SourceValue[]>): Promise<number> {
  const cols = table.columns;
  const perBatch = Math.max(1, Math.floor(BATCH_PARAMS / cols.length));
  const head = `insert into ${quoteIdent(table.name)} (${cols.map(quoteIdent).join(", ")}) values `;
  let batch: unknown[][] = [];
  let count = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    const tuples = batch.map((_, r) => `(${cols.map((__, c) => `$${r * cols.length + c + 1}`).join(", ")})`);
    await client.query(head + tuples.join(", "), batch.flat());
    count += batch.length;
    batch = [];
  };
  for (const row of rows) {
    batch.push(row.map((v, i) => toTarget(table.name, cols[i]!, kinds.get(cols[i]!)!, v)));
    if (batch.length >= perBatch) await flush();
  }
  await flush();
  return count;
}

/**
 * Moves every identity (or serial) sequence of `tables` past the largest id copied, so the daemon's
 * next insert gets the next id instead of colliding with a copied one. (setval is not undone by a
 * rollback: an aborted copy leaves a sequence ahead, which costs only a gap in the ids.)
 */
export async function resetSequences(client: pg.ClientBase, tables: readonly string[]): Promise<Array<{ table: string; column: string; next: number }>> {
  const { rows } = await client.query<{ table: string; column: string; seq: string }>(
    `select table_name as table, column_name as column, pg_get_serial_sequence(format('%I', table_name), column_name) as seq
     from information_schema.columns
     where table_schema = current_schema() and table_name = any($1)
       and pg_get_serial_sequence(format('%I', table_name), column_name) is not null
     order by 1, 2`, [tables]);
  const out: Array<{ table: string; column: string; next: number }> = [];
  for (const r of rows) {
    const next = await client.query<{ next: string }>(
      `select coalesce(max(${quoteIdent(r.column)}), 0) + 1 as next from ${quoteIdent(r.table)}`);
    await client.query("select setval($1, $2, false)", [r.seq, next.rows[0]!.next]);
    out.push({ table: r.table, column: r.column, next: Number(next.rows[0]!.next) });
  }
  return out;
}
