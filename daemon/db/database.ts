// Opens the SQLite audit store: WAL, synchronous=FULL (an acknowledged write survives a power cut),
// foreign keys on, a busy timeout, then runs the migrations. The raw better-sqlite3 handle is kept
// for hot write paths that need `transaction(...).immediate()`; everything else goes through kysely.
import BetterSqlite3 from "better-sqlite3";
import { Kysely, Migrator, SqliteDialect, type CompiledQuery } from "kysely";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { migrations } from "./migrations/index.js";
import type { Database } from "./schema.js";

export interface Store {
  db: Kysely<Database>;
  sqlite: BetterSqlite3.Database;
  /** Runs `fn` inside BEGIN IMMEDIATE ... COMMIT on the raw handle (synchronous, no awaits inside). */
  immediate<T>(fn: () => T): T;
  /**
   * Like `immediate`, but the commit is not synced to disk (synchronous=NORMAL for this one commit):
   * it survives a crash of the process and reaches the disk with the next durable commit, but a power
   * cut may lose it. Only for records whose loss costs the user a retry, never money or an order.
   */
  relaxed<T>(fn: () => T): T;
  /** Synchronous execution of a kysely-built query on the raw handle, with prepared statements cached. */
  sync: SyncExecutor;
  close(): Promise<void>;
}

export interface SyncExecutor {
  all<R>(query: CompiledQuery<R>): R[];
  get<R>(query: CompiledQuery<R>): R | undefined;
  run(query: CompiledQuery): { changes: number };
}

// Kysely builds the SQL (so the dialect can change later); better-sqlite3 runs it synchronously,
// which is what lets a hot write path sit inside one IMMEDIATE transaction with no awaits.
function syncExecutor(sqlite: BetterSqlite3.Database): SyncExecutor {
  const cache = new Map<string, BetterSqlite3.Statement>();
  const prepare = (sql: string) => {
    let stmt = cache.get(sql);
    if (!stmt) {
      stmt = sqlite.prepare(sql);
      cache.set(sql, stmt);
    }
    return stmt;
  };
  return {
    all: <R>(q: CompiledQuery<R>) => prepare(q.sql).all(...(q.parameters as unknown[])) as R[],
    get: <R>(q: CompiledQuery<R>) => prepare(q.sql).get(...(q.parameters as unknown[])) as R | undefined,
    run: (q) => ({ changes: prepare(q.sql).run(...(q.parameters as unknown[])).changes }),
  };
}

export async function openStore(path: string): Promise<Store> {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const sqlite = new BetterSqlite3(path);
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("synchronous = FULL");
  sqlite.pragma("foreign_keys = ON");
  sqlite.pragma("busy_timeout = 5000");
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });

  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === "Error");
  if (error || failed) {
    await db.destroy();
    throw new Error(`database migration failed${failed ? ` at ${failed.migrationName}` : ""}: ${String(error)}`, {
      cause: error,
    });
  }

  return {
    db,
    sqlite,
    immediate: <T>(fn: () => T) => sqlite.transaction(fn).immediate(),
    relaxed: <T>(fn: () => T) => {
      // One thread, no awaits inside: no other commit can run while the pragma is relaxed.
      sqlite.pragma("synchronous = NORMAL");
      try {
        return sqlite.transaction(fn).immediate();
      } finally {
        sqlite.pragma("synchronous = FULL");
      }
    },
    sync: syncExecutor(sqlite),
    close: () => db.destroy(),
  };
}
