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
  /**
   * Group commit: `fn` joins every other grouped call made before the event loop next turns, and the
   * group commits durably in one IMMEDIATE transaction, one fsync for all. Each call runs in its own
   * savepoint, so one that throws is rolled back alone and only its promise rejects. For hot durable
   * writes that arrive together (sign-ins under load).
   */
  grouped<T>(fn: () => T): Promise<T>;
  /** Synchronous execution of a kysely-built query on the raw handle, with prepared statements cached. */
  sync: SyncExecutor;
  /**
   * Rows written on this connection so far (SQLite's total_changes()). The daemon is the database's
   * only writer and writes through this connection, so a cache of query results stays valid while
   * this number does not move.
   */
  changes(): number;
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

interface GroupedCall {
  fn: () => unknown;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

function commitGroups(sqlite: BetterSqlite3.Database) {
  let queue: GroupedCall[] = [];
  const flush = () => {
    const calls = queue;
    queue = [];
    if (calls.length === 0) return;
    const outcomes: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
    try {
      sqlite.transaction(() => {
        for (const call of calls) {
          try {
            outcomes.push({ ok: true, value: sqlite.transaction(call.fn)() }); // nested: a savepoint
          } catch (error) {
            outcomes.push({ ok: false, error });
          }
        }
      }).immediate();
    } catch (error) {
      for (const call of calls) call.reject(error); // BEGIN or COMMIT failed: nothing was written
      return;
    }
    calls.forEach((call, i) => {
      const o = outcomes[i]!;
      if (o.ok) call.resolve(o.value);
      else call.reject(o.error);
    });
  };
  return {
    grouped: <T>(fn: () => T) =>
      new Promise<T>((resolve, reject) => {
        if (queue.length === 0) setImmediate(flush);
        queue.push({ fn, resolve: resolve as (v: unknown) => void, reject });
      }),
    /** Commits what is queued now (before the handle closes). */
    flush,
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

  const groups = commitGroups(sqlite);
  const totalChanges = sqlite.prepare("select total_changes()").pluck();
  return {
    db,
    sqlite,
    immediate: <T>(fn: () => T) => sqlite.transaction(fn).immediate(),
    relaxed: <T>(fn: () => T) => {
      // Inside a transaction SQLite refuses to change the level: the writes join that transaction
      // (as a savepoint) and are committed with its durability.
      if (sqlite.inTransaction) return sqlite.transaction(fn)();
      // One thread, no awaits inside: no other commit can run while the pragma is relaxed.
      sqlite.pragma("synchronous = NORMAL");
      try {
        return sqlite.transaction(fn).immediate();
      } finally {
        sqlite.pragma("synchronous = FULL");
      }
    },
    grouped: groups.grouped,
    changes: () => totalChanges.get() as number,
    sync: syncExecutor(sqlite),
    close: () => {
      groups.flush();
      return db.destroy();
    },
  };
}
