// The SQLite database a daemon kept its records in, opened read-only for `tradevaultd migrate-store`:
// refused unless it is a tradevault database with exactly this build's migrations applied, then read
// in one read transaction (copy and checksums see one instant of it). Its tables, columns, keys and
// foreign keys are read from the file itself, not listed by hand, so a table a later migration adds
// is moved too.
import Database from "better-sqlite3";
import { statSync } from "node:fs";
import { sqliteMigrations } from "../db/migrations/index.js";
import { AppError } from "../errors.js";

export interface SourceTable {
  name: string;
  columns: string[];
  /** Primary-key columns in key order (every column for a table without one): the order rows are read in. */
  key: string[];
  /** Other tables its foreign keys point at: they are filled first. */
  refersTo: string[];
}

export type SourceValue = null | bigint | number | string | Buffer;

export interface Source {
  path: string;
  /** In an order that fills every referenced table before the tables that refer to it. */
  tables: SourceTable[];
  /** The table's rows in primary-key order, each its columns' values in `columns` order. */
  rows(table: SourceTable): IterableIterator<SourceValue[]>;
  close(): void;
}

/** Kysely's bookkeeping and SQLite's own tables are not the daemon's records. */
const isRecordTable = (name: string) => !/^(sqlite_|kysely_)/.test(name);

export const quoteIdent = (name: string): string => `"${name.replace(/"/g, '""')}"`;

function open(path: string): Database.Database {
  if (!statSync(path, { throwIfNoEntry: false })?.isFile()) throw new AppError("NOT_FOUND", `cannot open ${path}: no such file`);
  let db: Database.Database | undefined;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true });
    // Opening reads nothing; the first query finds out whether this is a SQLite database at all.
    db.prepare("select count(*) from sqlite_master").get();
    return db;
  } catch (e) {
    db?.close();
    throw new AppError("INVALID_INPUT", `cannot open ${path} as a SQLite database: ${(e as Error).message}`, { cause: e });
  }
}

/** The source must be at exactly this build's schema: the target is migrated to the same one. */
function assertMigrated(db: Database.Database, path: string): void {
  const hasTable = db.prepare("select 1 from sqlite_master where type = 'table' and name = 'kysely_migration'").get();
  if (!hasTable) throw new AppError("INVALID_INPUT", `${path} is not a tradevault database (it has no migration table)`);
  const applied = new Set((db.prepare("select name from kysely_migration").all() as Array<{ name: string }>).map((r) => r.name));
  const known = Object.keys(sqliteMigrations);
  const unknown = [...applied].filter((n) => !known.includes(n));
  if (unknown.length > 0) {
    throw new AppError("CONFLICT", `${path} was written by a newer tradevault (migrations ${unknown.join(", ")} are unknown to this one): upgrade tradevault, then move it`);
  }
  const missing = known.filter((n) => !applied.has(n));
  if (missing.length > 0) {
    throw new AppError("CONFLICT", `${path} lacks migrations ${missing.join(", ")}: start this version's daemon on it once (it migrates at start), stop it, then move it`);
  }
}

function describe(db: Database.Database, name: string): SourceTable {
  const cols = db.prepare(`pragma table_info(${quoteIdent(name)})`).all() as Array<{ name: string; pk: number }>;
  const key = cols.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk).map((c) => c.name);
  const refs = db.prepare(`pragma foreign_key_list(${quoteIdent(name)})`).all() as Array<{ table: string }>;
  return {
    name,
    columns: cols.map((c) => c.name),
    key: key.length > 0 ? key : cols.map((c) => c.name),
    refersTo: [...new Set(refs.map((r) => r.table))].filter((t) => t !== name),
  };
}

/**
 * Referenced tables first (PostgreSQL checks each foreign key at the insert). A table that refers to
 * itself (a journal row replacing an older one) is read in key order, so the row referred to comes
 * first.
 */
function fillOrder(tables: SourceTable[]): SourceTable[] {
  const byName = new Map(tables.map((t) => [t.name, t]));
  const out: SourceTable[] = [];
  const state = new Map<string, "visiting" | "done">();
  const visit = (t: SourceTable): void => {
    if (state.get(t.name) === "done") return;
    if (state.get(t.name) === "visiting") throw new AppError("INTERNAL", `the foreign keys of ${t.name} form a cycle; this command cannot order the copy`);
    state.set(t.name, "visiting");
    for (const r of t.refersTo) if (byName.has(r)) visit(byName.get(r)!);
    state.set(t.name, "done");
    out.push(t);
  };
  tables.forEach(visit);
  return out;
}

export function openSource(path: string): Source {
  const db = open(path);
  try {
    assertMigrated(db, path);
    // One snapshot for everything read from here on, even if a daemon were still writing the file.
    db.exec("begin");
    const names = (db.prepare("select name from sqlite_master where type = 'table' order by name").all() as Array<{ name: string }>)
      .map((r) => r.name).filter(isRecordTable);
    const tables = fillOrder(names.map((n) => describe(db, n)));
    return {
      path,
      tables,
      rows: (t) => {
        const cols = t.columns.map(quoteIdent).join(", ");
        // safeIntegers: a 64-bit integer comes out exact (a bigint), never rounded through a double.
        const stmt = db.prepare(`select ${cols} from ${quoteIdent(t.name)} order by ${t.key.map(quoteIdent).join(", ")}`).raw(true).safeIntegers(true);
        return stmt.iterate() as IterableIterator<SourceValue[]>;
      },
      close: () => db.close(),
    };
  } catch (e) {
    db.close();
    throw e;
  }
}
