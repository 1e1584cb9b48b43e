// The store on one SQLite file: WAL, synchronous=FULL (an acknowledged write survives a power cut),
// foreign keys on, a busy timeout, then the migrations. One connection: kysely's lease of it is the
// write lock, so a unit of work is exclusive (BEGIN IMMEDIATE) and a relaxed one can lower the sync
// level for its own commit without touching anyone else's.
import BetterSqlite3 from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { migrateToLatest } from "./migrate.js";
import { sqliteMigrations } from "./migrations/index.js";
import type { Database } from "./schema.js";
import type { Executor, Store } from "./store.js";
import { unitOfWork, type TransactionRunner } from "./unit-of-work.js";

export interface SqliteStore extends Store {
  readonly kind: "sqlite";
  /** The raw handle, for tests and benchmarks that measure the file itself; services never use it. */
  sqlite: BetterSqlite3.Database;
}

/** One daemon per file: a lock by name within this process is a lock on the database. */
function exclusiveInProcess() {
  const tails = new Map<string, Promise<unknown>>();
  return <T>(name: string, fn: () => Promise<T>): Promise<T> => {
    const run = (tails.get(name) ?? Promise.resolve()).then(fn, fn);
    const tail = run.catch(() => undefined);
    tails.set(name, tail);
    void tail.then(() => tails.get(name) === tail && tails.delete(name));
    return run;
  };
}

/**
 * better-sqlite3 behind kysely's dialect, with prepared statements cached by SQL text: kysely asks
 * for a new statement on every query, and preparing costs more than running a small one.
 */
function cachingHandle(sqlite: BetterSqlite3.Database) {
  const cache = new Map<string, BetterSqlite3.Statement>();
  return {
    prepare(text: string) {
      let stmt = cache.get(text);
      if (!stmt) {
        // IN-lists vary in length; a bounded cache keeps such texts from growing it for ever.
        if (cache.size >= 1_000) cache.clear();
        stmt = sqlite.prepare(text);
        cache.set(text, stmt);
      }
      return stmt;
    },
    close: () => sqlite.close(),
  };
}

/**
 * BEGIN IMMEDIATE on the store's one connection; every other query waits for kysely's lease of it.
 * The transaction's own statements (BEGIN, COMMIT, savepoints, the sync level) run directly on the
 * handle while the lease is held, which saves four trips through kysely's async path per unit of
 * work (bench order-path).
 */
function sqliteTransactions(db: Executor, sqlite: BetterSqlite3.Database): TransactionRunner {
  const exec = (statement: string): void => void sqlite.exec(statement);
  return (synced, body) =>
    db.connection().execute(async (trx) => {
      // One connection: no other commit can run while the level is relaxed.
      if (!synced) exec("pragma synchronous = NORMAL");
      try {
        exec("begin immediate");
        try {
          const value = await body({ trx, run: exec });
          exec("commit");
          return value;
        } catch (err) {
          try {
            exec("rollback");
          } catch {
            /* the failure already ended the transaction */
          }
          throw err;
        }
      } finally {
        if (!synced) exec("pragma synchronous = FULL");
      }
    });
}

export async function openSqliteStore(path: string): Promise<SqliteStore> {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const sqlite = new BetterSqlite3(path);
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("synchronous = FULL");
  sqlite.pragma("foreign_keys = ON");
  sqlite.pragma("busy_timeout = 5000");
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: cachingHandle(sqlite) }) });
  await migrateToLatest(db, sqliteMigrations);

  const work = unitOfWork(sqliteTransactions(db, sqlite));
  const totalChanges = sqlite.prepare("select total_changes()").pluck();
  return {
    kind: "sqlite",
    db,
    sqlite,
    write: work.write,
    relaxed: work.relaxed,
    // The daemon is the file's only writer, and writes through this connection.
    changeKey: async () => String(totalChanges.get()),
    exclusive: exclusiveInProcess(),
    now: async () => Date.now(),
    listen: () => () => undefined,
    close: () => db.destroy(),
  };
}

/** The raw handle of a store that is SQLite's, for tests and benchmarks that measure the file. */
export function sqliteHandle(store: Store): BetterSqlite3.Database {
  if (store.kind !== "sqlite") throw new Error(`this needs the SQLite store, not ${store.kind}`);
  return (store as SqliteStore).sqlite;
}
