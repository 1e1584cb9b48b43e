// The store as services and repositories see it: an executor to run queries on, units of work to
// write in, a cache key, and close. Two adapters implement it (sqlite-store.ts, postgres-store.ts);
// nothing here names a driver, so code written against this port runs on either.
import { sql, type Kysely } from "kysely";
import type { Database } from "./schema.js";

/** What a repository runs on: the store's `db`, or a unit of work's transaction. */
export type Executor = Kysely<Database>;

/**
 * Write transactions (no network call while one is open). `fn` gets the transaction's executor; a
 * unit of work started inside another joins it as a savepoint and commits with the outer one's
 * durability. Whatever `fn` reads and then writes must either be one statement or be guarded by a
 * row lock (see name-lock.ts): on PostgreSQL other writers run at the same time.
 */
export interface UnitOfWork {
  /** Durable: the commit is on disk (synced) before the promise resolves. */
  write<T>(fn: (trx: Executor) => Promise<T>): Promise<T>;
  /**
   * Not synced: it survives a crash of the process and reaches the disk with the next durable
   * commit, but a power cut may lose it. Only for records whose loss costs the user a retry, never
   * money or an order.
   */
  relaxed<T>(fn: (trx: Executor) => Promise<T>): Promise<T>;
}

export type StoreKind = "sqlite" | "postgres";

export interface Store extends UnitOfWork {
  readonly kind: StoreKind;
  db: Executor;
  /**
   * Moves whenever anything was written since it was last read, by this daemon or by any other
   * writer of the same database: a cache of query results stays valid while the key does not move.
   * Read it before the query whose result it keys.
   */
  changeKey(): Promise<string>;
  /**
   * Runs `fn` while no other holder of the same name runs, in any daemon on the database (a
   * PostgreSQL advisory lock held for the call; on SQLite, one daemon's file, the daemon's own queue).
   * For work that sends over the network while it holds the lock, as a first deployment does: never
   * a unit of work.
   */
  exclusive<T>(name: string, fn: () => Promise<T>): Promise<T>;
  /** The database's clock, Unix ms: what leases shared by several daemons expire by. */
  now(): Promise<number>;
  /**
   * Calls `listener` when a writer notifies `channel` (db/notices.ts), whichever daemon it is; on
   * SQLite never (one daemon per file). The returned function stops listening.
   */
  listen(channel: string, listener: (payload: string) => void): () => void;
  /** Shared stores only: marks that live exactly as long as a process's connection (db/presence.ts). */
  presence?: Presence;
  /** Closes the connections. */
  close(): Promise<void>;
}

/**
 * A daemon's presence on a shared database: held on a connection of its own, which the server drops
 * the moment the daemon's process dies (its socket closes), so the others learn of a crash within a
 * lease round instead of waiting for the leases to expire.
 */
export interface Presence {
  /** Holds `name` from now until this store closes or its connection breaks; false when another session holds it. */
  hold(name: string): Promise<boolean>;
  /** Of `names`, those some session holds now. */
  held(names: string[]): Promise<Set<string>>;
}

/** Resolves when the database answers a query (what /healthz asks), rejects with why it did not. */
export async function ping(db: Executor): Promise<void> {
  await sql`select 1 as up`.execute(db);
}
