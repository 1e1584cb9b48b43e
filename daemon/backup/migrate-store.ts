// `tradevaultd migrate-store --from <sqlite file> --to <postgres url>`: moves a data directory's
// records from SQLite into an empty PostgreSQL database that several daemons can then share. The
// target is brought to the daemon's schema, then every table is copied inside one transaction, the
// identity sequences moved past the copied ids, and every table's row count and checksum compared
// with the source's before that transaction commits: a copy that does not match is rolled back and
// leaves the target as empty as it was. Run with the daemon stopped (rows it wrote later would not
// be moved).
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type pg from "pg";
import { AppError } from "../errors.js";
import { isPostgresUrl, redactUrl } from "./database-url.js";
import { addMissingRecords, externalChainRecords, type ChainRecord } from "./deployment-records.js";
import { columnKinds, connectTarget, insertRows, migrateTarget, resetSequences, tablesWithRows, targetColumns } from "./postgres-target.js";
import type { Kind } from "./row-values.js";
import { openSource, quoteIdent, type Source } from "./sqlite-source.js";
import { sourceSum, targetSum, type TableSum } from "./table-checksum.js";

export interface TableCheck {
  table: string;
  source: TableSum;
  target: TableSum;
  ok: boolean;
}

export interface MigrateStoreResult {
  from: string;
  /** The target's URL without its password. */
  to: string;
  /** Every table of the schema, by name; the copy was committed only if each is ok. */
  checks: TableCheck[];
  committed: boolean;
  /** External chains' deployment records carried over from the data directory's files. */
  records: ChainRecord[];
  /** The source data directory's key files, where they exist: what daemons on the target need. */
  keys: { secretKey?: string; operatorKey?: string };
}

export interface MigrateStoreOptions {
  from: string;
  to: string;
  /** Told each table as it is copied, with its row count (a large database takes a while). */
  onCopied?: (table: string, rows: number) => void;
}

function refuseNonEmpty(url: string, tables: string[]): never {
  throw new AppError("CONFLICT", `${redactUrl(url)} is not empty (rows in ${tables.join(", ")}): move into a new database (createdb) or one that holds no tradevault rows`);
}

/** Each table's count and checksum on both sides, by table name (inside the target's transaction). */
export async function checkTables(source: Source, client: pg.ClientBase, kinds: Map<string, Map<string, Kind>>): Promise<TableCheck[]> {
  const checks: TableCheck[] = [];
  for (const table of [...source.tables].sort((a, b) => a.name.localeCompare(b.name))) {
    const [s, t] = [sourceSum(source, table), await targetSum(client, table, targetColumns(kinds, table))];
    checks.push({ table: table.name, source: s, target: t, ok: s.rows === t.rows && s.sha256 === t.sha256 });
  }
  return checks;
}

/**
 * Copies and checks inside one transaction; commits only when every table matches. The tables are
 * locked against writers first, so a daemon started on the target meanwhile cannot slip rows in.
 */
async function copyAndCheck(source: Source, client: pg.ClientBase, opts: MigrateStoreOptions, records: ChainRecord[]) {
  const names = source.tables.map((t) => t.name);
  await client.query("begin");
  try {
    const kinds = await columnKinds(client, names);
    const columns = source.tables.map((t) => targetColumns(kinds, t));
    await client.query(`lock table ${names.map(quoteIdent).join(", ")} in exclusive mode`);
    const busy = await tablesWithRows(client, names);
    if (busy.length > 0) refuseNonEmpty(opts.to, busy);
    for (const [i, table] of source.tables.entries()) {
      const rows = await insertRows(client, table, columns[i]!, source.rows(table));
      opts.onCopied?.(table.name, rows);
    }
    await resetSequences(client, names);
    const checks = await checkTables(source, client, kinds);
    const committed = checks.every((c) => c.ok);
    // After the checks, which compare the source's tables as they are.
    const added = committed ? await addMissingRecords(client, records) : [];
    await client.query(committed ? "commit" : "rollback");
    return { checks, committed, added };
  } catch (e) {
    await client.query("rollback").catch(() => undefined);
    throw e;
  }
}

export async function migrateStore(opts: MigrateStoreOptions): Promise<MigrateStoreResult> {
  if (isPostgresUrl(opts.from)) throw new AppError("INVALID_INPUT", "--from takes the SQLite file of a data directory (<data-dir>/tradevault-<network>.db), not a URL");
  if (!isPostgresUrl(opts.to)) throw new AppError("INVALID_INPUT", "--to takes a PostgreSQL URL (postgres://user:password@host:port/database)");
  const from = resolve(opts.from);
  const dataDir = dirname(from);
  const source = openSource(from);
  try {
    const records = externalChainRecords(dataDir);
    const client = await connectTarget(opts.to);
    try {
      // Before the migrations too: a database that holds rows is left exactly as it was.
      const busy = await tablesWithRows(client, source.tables.map((t) => t.name));
      if (busy.length > 0) refuseNonEmpty(opts.to, busy);
      await migrateTarget(opts.to);
      const { checks, committed, added } = await copyAndCheck(source, client, opts, records);
      const key = (name: string) => (existsSync(join(dataDir, "keys", name)) ? join(dataDir, "keys", name) : undefined);
      return { from, to: redactUrl(opts.to), checks, committed, records: added, keys: { secretKey: key("secret.key"), operatorKey: key("operator.key") } };
    } finally {
      await client.end().catch(() => undefined);
    }
  } finally {
    source.close();
  }
}
