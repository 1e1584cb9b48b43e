// Opens the SQLite audit store: WAL, synchronous=FULL (an acknowledged write survives a power cut),
// foreign keys on, a busy timeout, then runs the migrations. Everything reads and writes through
// kysely; repositories take one executor (the store's `db`, or the transaction a unit of work hands
// them), so the same repositories can later run on another dialect.
import { AsyncLocalStorage } from "node:async_hooks";
import BetterSqlite3 from "better-sqlite3";
import { Kysely, Migrator, sql, SqliteDialect } from "kysely";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { migrations } from "./migrations/index.js";
import type { Database } from "./schema.js";

/** What a repository runs on: the store's `db`, or a unit of work's transaction. */
export type Executor = Kysely<Database>;

/**
 * Write transactions (DESIGN section 4: BEGIN IMMEDIATE, no network call while one is open). `fn`
 * gets the transaction's executor; a unit of work started inside another joins it as a savepoint
 * and commits with the outer one's durability.
 */
export interface UnitOfWork {
  /** Durable: the commit is synced to disk before the promise resolves. */
  write<T>(fn: (trx: Executor) => Promise<T>): Promise<T>;
  /**
   * Not synced (synchronous=NORMAL for this one commit): it survives a crash of the process and
   * reaches the disk with the next durable commit, but a power cut may lose it. Only for records
   * whose loss costs the user a retry, never money or an order.
   */
  relaxed<T>(fn: (trx: Executor) => Promise<T>): Promise<T>;
  /**
   * Group commit: `fn` joins every other grouped call made before the event loop next turns, and the
   * group commits durably in one transaction, one fsync for all. Each call runs in its own savepoint,
   * so one that throws is rolled back alone and only its promise rejects.
   */
  grouped<T>(fn: (trx: Executor) => Promise<T>): Promise<T>;
}

export interface Store extends UnitOfWork {
  db: Executor;
  /** The raw handle, for tests and benchmarks that measure the file itself; services never use it. */
  sqlite: BetterSqlite3.Database;
  /**
   * Rows written on this connection so far (SQLite's total_changes()). The daemon is the database's
   * only writer and writes through this connection, so a cache of query results stays valid while
   * this number does not move.
   */
  changes(): number;
  close(): Promise<void>;
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

interface OpenTransaction {
  trx: Executor;
  open: boolean;
  savepoints: number;
}

/**
 * Units of work on the store's one connection. kysely's connection lease is the lock (every other
 * query waits for it); the transaction's own statements (BEGIN, COMMIT, savepoints, the sync level)
 * run directly on the handle while the lease is held, which saves four trips through kysely's async
 * path per unit of work (bench order-path).
 */
function unitOfWork(db: Executor, control: (statement: string) => void): UnitOfWork & { flush(): Promise<void> } {
  const current = new AsyncLocalStorage<OpenTransaction>();

  async function inSavepoint<T>(t: OpenTransaction, fn: (trx: Executor) => Promise<T>): Promise<T> {
    const name = `sp${++t.savepoints}`;
    control(`savepoint ${name}`);
    try {
      const value = await fn(t.trx);
      control(`release ${name}`);
      return value;
    } catch (err) {
      control(`rollback to ${name}`);
      control(`release ${name}`);
      throw err;
    }
  }

  /** BEGIN IMMEDIATE on the store's one connection; everything else waits for it. */
  function transaction<T>(synced: boolean, body: (t: OpenTransaction) => Promise<T>): Promise<T> {
    return db.connection().execute(async (conn) => {
      // One connection: no other commit can run while the level is relaxed.
      if (!synced) control("pragma synchronous = NORMAL");
      const t: OpenTransaction = { trx: conn, open: true, savepoints: 0 };
      try {
        control("begin immediate");
        try {
          const value = await current.run(t, () => body(t));
          control("commit");
          return value;
        } catch (err) {
          try {
            control("rollback");
          } catch {
            /* the failure already ended the transaction */
          }
          throw err;
        } finally {
          t.open = false;
        }
      } finally {
        if (!synced) control("pragma synchronous = FULL");
      }
    });
  }

  const run = <T>(synced: boolean, fn: (trx: Executor) => Promise<T>): Promise<T> => {
    const outer = current.getStore();
    if (outer?.open) return inSavepoint(outer, fn);
    return transaction(synced, (t) => fn(t.trx));
  };

  let queue: Array<{ fn: (trx: Executor) => Promise<unknown>; resolve(v: unknown): void; reject(e: unknown): void }> = [];
  let flushing: Promise<void> = Promise.resolve();
  const flush = (): Promise<void> => {
    const calls = queue;
    queue = [];
    if (calls.length === 0) return flushing;
    const outcomes: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
    flushing = transaction(true, async (t) => {
      for (const call of calls) {
        try {
          outcomes.push({ ok: true, value: await inSavepoint(t, call.fn) });
        } catch (error) {
          outcomes.push({ ok: false, error });
        }
      }
    }).then(
      () => calls.forEach((call, i) => {
        const o = outcomes[i]!;
        if (o.ok) call.resolve(o.value);
        else call.reject(o.error);
      }),
      (error) => calls.forEach((call) => call.reject(error)), // BEGIN or COMMIT failed: nothing was written
    );
    return flushing;
  };

  return {
    write: (fn) => run(true, fn),
    relaxed: (fn) => run(false, fn),
    grouped<T>(fn: (trx: Executor) => Promise<T>): Promise<T> {
      const outer = current.getStore();
      if (outer?.open) return inSavepoint(outer, fn);
      return new Promise<T>((resolve, reject) => {
        if (queue.length === 0) setImmediate(() => void flush());
        queue.push({ fn, resolve: resolve as (v: unknown) => void, reject });
      });
    },
    flush,
  };
}

/** Resolves when the database answers a query (what /healthz asks), rejects with why it did not. */
export async function ping(db: Executor): Promise<void> {
  await sql`select 1 as up`.execute(db);
}

export async function openStore(path: string): Promise<Store> {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const sqlite = new BetterSqlite3(path);
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("synchronous = FULL");
  sqlite.pragma("foreign_keys = ON");
  sqlite.pragma("busy_timeout = 5000");
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: cachingHandle(sqlite) }) });

  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === "Error");
  if (error || failed) {
    await db.destroy();
    throw new Error(`database migration failed${failed ? ` at ${failed.migrationName}` : ""}: ${String(error)}`, {
      cause: error,
    });
  }

  const work = unitOfWork(db, (statement) => sqlite.exec(statement));
  const totalChanges = sqlite.prepare("select total_changes()").pluck();
  return {
    db,
    sqlite,
    write: work.write,
    relaxed: work.relaxed,
    grouped: work.grouped,
    changes: () => totalChanges.get() as number,
    close: async () => {
      await work.flush();
      await db.destroy();
    },
  };
}
