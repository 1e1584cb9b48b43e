// The store on a PostgreSQL database (kysely's PostgresDialect over a `pg` pool), shared with any
// other daemon that opens the same URL. Reads and write transactions run side by side on the pool, at
// READ COMMITTED: a unit of work that reads then writes guards what it read with a row lock or makes
// it one statement (docs/design.md "Concurrent writers").
import { AsyncLocalStorage } from "node:async_hooks";
import { Kysely, PostgresDialect, sql } from "kysely";
import pg from "pg";
import { migrateToLatest } from "./migrate.js";
import { DEFAULT_LIMITS, migrateUntimed, timedClient, timedPool, type PostgresLimits } from "./postgres-pool.js";
import { postgresPresence } from "./presence.js";
import { postgresMigrations } from "./migrations/index.js";
import type { Database } from "./schema.js";
import type { Executor, Store } from "./store.js";
import { unitOfWork, type TransactionRunner } from "./unit-of-work.js";

export interface PostgresStore extends Store {
  readonly kind: "postgres";
}

/**
 * bigint columns (times in ms, ids, oids, counts) as JS numbers, as SQLite hands out its integers.
 * They stay below 2^53; a value beyond would come out as a bigint, exact, and fail loudly in
 * arithmetic with numbers rather than lose digits. numeric (sums) stays a string.
 */
const parseInt8 = (text: string): number | bigint => {
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : BigInt(text);
};

const types = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === pg.types.builtins.INT8 ? parseInt8 : pg.types.getTypeParser(oid, format as "text")) as typeof pg.types.getTypeParser,
};

/**
 * The pool as kysely sees it, noting which client each transaction leased: a transaction's own
 * statements (BEGIN, COMMIT, savepoints) go to that client directly, and COMMIT's answer is read
 * there, which kysely does not pass on. The slot is per transaction (AsyncLocalStorage); the first
 * connection taken in it is the lease, any later one (a query on `db` from inside) is someone else's.
 */
function leasingPool(pool: pg.Pool) {
  const slots = new AsyncLocalStorage<{ client?: pg.PoolClient }>();
  return {
    pool: {
      async connect() {
        const client = await pool.connect();
        const slot = slots.getStore();
        if (slot && !slot.client) slot.client = client;
        return client;
      },
      end: () => pool.end(),
    },
    lease: <T>(fn: (slot: { client?: pg.PoolClient }) => Promise<T>) => {
      const slot: { client?: pg.PoolClient } = {};
      return slots.run(slot, () => fn(slot));
    },
  };
}

/**
 * The server chose this transaction as a deadlock's victim and rolled it back whole: nothing of it
 * was stored, and a unit of work makes no network call, so running it again is safe.
 */
const DEADLOCK = "40P01";
const DEADLOCK_TRIES = 3;

/**
 * BEGIN on a pooled connection; other transactions run on other connections meanwhile, at READ
 * COMMITTED. Relaxed: `synchronous_commit = off` for this transaction only (the commit returns
 * before its WAL is flushed; a crash of the server may lose it, never corrupt anything).
 */
function postgresTransactions(db: Executor, lease: ReturnType<typeof leasingPool>["lease"]): TransactionRunner {
  const once: TransactionRunner = (synced, body) =>
    lease((slot) => db.connection().execute(async (trx) => {
      const client = slot.client!;
      await client.query(synced ? "begin" : "begin; set local synchronous_commit = off");
      try {
        const value = await body({ trx, run: async (statement) => void (await client.query(statement)) });
        // A statement that failed inside (its error caught) leaves the transaction aborted; COMMIT then
        // answers ROLLBACK without an error. The write must not resolve as if it were stored.
        const done = await client.query("commit");
        if (done.command !== "COMMIT") throw new Error(`the transaction was rolled back (${done.command}): a statement in it failed`);
        return value;
      } catch (err) {
        await client.query("rollback").catch(() => undefined);
        throw err;
      }
    }));
  return async (synced, body) => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await once(synced, body);
      } catch (err) {
        if ((err as { code?: unknown }).code !== DEADLOCK || attempt >= DEADLOCK_TRIES) throw err;
      }
    }
  };
}

/**
 * LISTEN on a connection of its own, opened at the first listener and reopened after a loss (the
 * notices sent meanwhile are lost: listeners poll as well).
 */
function listener(newClient: () => pg.Client) {
  const channels = new Map<string, Set<(payload: string) => void>>();
  let client: pg.Client | undefined;
  let connecting: Promise<void> | undefined;
  let closed = false;
  const connect = (): Promise<void> => (connecting ??= (async () => {
    const c = newClient();
    c.on("notification", (n) => channels.get(n.channel)?.forEach((l) => l(n.payload ?? "")));
    c.on("error", () => undefined);
    c.on("end", () => {
      client = undefined;
      connecting = undefined;
      if (!closed && channels.size > 0) setTimeout(() => void connect().catch(() => undefined), 1_000).unref();
    });
    await c.connect();
    for (const channel of channels.keys()) await c.query(`listen ${c.escapeIdentifier(channel)}`);
    client = c;
  })().catch((err) => {
    connecting = undefined;
    if (!closed) setTimeout(() => void connect().catch(() => undefined), 1_000).unref();
    throw err;
  }));
  const listen = (channel: string, fn: (payload: string) => void): (() => void) => {
    let set = channels.get(channel);
    if (!set) {
      channels.set(channel, (set = new Set()));
      if (client) void client.query(`listen ${client.escapeIdentifier(channel)}`).catch(() => undefined);
      else void connect().catch(() => undefined);
    }
    set.add(fn);
    return () => void set.delete(fn);
  };
  return Object.assign(listen, {
    close: async () => {
      closed = true;
      await client?.end().catch(() => undefined);
    },
  });
}

/**
 * Calls made in one turn of the event loop share one call of `read`, made at the end of the turn:
 * every caller asked before the query was sent, so the answer is as fresh for each as a query of its
 * own (what changeKey promises). A loaded daemon reads the key for many requests with one query.
 */
export function sameTurn<T>(read: () => Promise<T>): () => Promise<T> {
  let next: Promise<T> | undefined;
  return () =>
    (next ??= new Promise<T>((resolve, reject) => {
      setImmediate(() => {
        next = undefined;
        read().then(resolve, reject);
      });
    }));
}

export async function openPostgresStore(url: string, opts: { poolSize?: number; limits?: PostgresLimits } = {}): Promise<PostgresStore> {
  const limits = opts.limits ?? DEFAULT_LIMITS;
  // Migrations first, untimed on a connection of their own; every pooled connection is timed.
  await migrateUntimed(url, (migrating) => migrateToLatest(migrating, postgresMigrations));
  const pool = timedPool(url, limits, { max: opts.poolSize ?? 10, types });
  // A pooled connection that breaks while idle is dropped by the pool, and the next query opens
  // another; without a listener its error would end the process.
  pool.on("error", () => undefined);
  const leasing = leasingPool(pool);
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: leasing.pool }) });

  const work = unitOfWork(postgresTransactions(db, leasing.lease));
  const notices = listener(() => timedClient(url, limits));
  const presence = postgresPresence(() => timedClient(url, limits), pool);
  return {
    kind: "postgres",
    db,
    write: work.write,
    relaxed: work.relaxed,
    // xmin:xmax:in-progress list. It moves whenever a transaction that wrote ends, whichever daemon
    // ran it (xmax passes it, or it leaves the in-progress list), and the set of visible commits
    // cannot change while it stands still. A rollback moves it too: a harmless extra miss.
    changeKey: sameTurn(async () => (await sql<{ key: string }>`select pg_current_snapshot()::text as key`.execute(db)).rows[0]!.key),
    async exclusive<T>(name: string, fn: () => Promise<T>): Promise<T> {
      // A session lock on a connection of its own, held across `fn`'s awaits and network calls.
      const client = await pool.connect();
      try {
        // Waiting for another daemon's turn (a deployment, a close) may outlast the pool's lock and
        // statement timeouts: off for the wait, back to the connection's own once the lock is taken.
        await client.query("set lock_timeout = 0; set statement_timeout = 0");
        await client.query("select pg_advisory_lock(hashtext($1))", [name]);
        await client.query("reset lock_timeout; reset statement_timeout");
        try {
          return await fn();
        } finally {
          await client.query("select pg_advisory_unlock(hashtext($1))", [name]);
        }
      } finally {
        client.release();
      }
    },
    listen: notices,
    presence,
    now: async () => (await sql<{ now: number }>`select (extract(epoch from clock_timestamp()) * 1000)::bigint as now`.execute(db)).rows[0]!.now,
    close: async () => {
      await notices.close();
      await presence.close();
      await db.destroy();
    },
  };
}
