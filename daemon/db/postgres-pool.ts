// The daemon's connections to PostgreSQL, each bounded in time: a session left idle inside a
// transaction, a lock wait and a statement are ended by the server after a few seconds, and a peer
// gone silent is found by TCP keepalives, so no stalled or unreachable daemon can hold the others'
// rows for long. The settings go in the startup packet (`options`), so a new connection has them
// with no extra round trip. Migrations connect untimed (so does migrate-store, backup/postgres-target.ts).
import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import type { Database } from "./schema.js";
import { commitInDoubt, isConnectionLost } from "../errors.js";

/** Every timeout off, whatever the database's or the role's defaults: work long by nature. */
const UNTIMED = "-c idle_in_transaction_session_timeout=0 -c lock_timeout=0 -c statement_timeout=0";

export interface PostgresLimits {
  /** idle_in_transaction_session_timeout: a session idle this long inside a transaction is ended. */
  idleInTransactionMs: number;
  /** lock_timeout: a statement waiting this long for a lock fails (55P03). */
  lockMs: number;
  /** statement_timeout: a statement running this long is canceled (57014). */
  statementMs: number;
  /** How long opening a connection, or waiting for a free one in the pool, may take. */
  connectMs: number;
  /** Silence on a connection before the first keepalive probe (the server's and the daemon's socket). */
  keepAliveIdleMs: number;
  /** Between the server's probes (the daemon's side keeps the kernel's: Node cannot set it). */
  keepAliveIntervalMs: number;
  /** Unanswered probes after which the server drops the connection. */
  keepAliveCount: number;
}

export const DEFAULT_LIMITS: PostgresLimits = Object.freeze({
  idleInTransactionMs: 5_000,
  lockMs: 3_000,
  statementMs: 15_000,
  connectMs: 5_000,
  keepAliveIdleMs: 5_000,
  keepAliveIntervalMs: 2_000,
  keepAliveCount: 3,
});

/** The server settings as `-c name=value` startup options (0 turns a timeout off). */
export function sessionOptions(l: PostgresLimits): string {
  const seconds = (ms: number) => Math.max(1, Math.round(ms / 1000));
  return [
    `-c idle_in_transaction_session_timeout=${Math.round(l.idleInTransactionMs)}`,
    `-c lock_timeout=${Math.round(l.lockMs)}`,
    `-c statement_timeout=${Math.round(l.statementMs)}`,
    // The server's own probes of the daemon's socket: what ends a session whose box went silent.
    `-c tcp_keepalives_idle=${seconds(l.keepAliveIdleMs)}`,
    `-c tcp_keepalives_interval=${seconds(l.keepAliveIntervalMs)}`,
    `-c tcp_keepalives_count=${Math.max(1, Math.round(l.keepAliveCount))}`,
  ].join(" ");
}

/**
 * A URL's own `options` parameter would replace the config's (node-postgres lets the URL win), so
 * the limits are put in front of it there: a setting the operator wrote in the URL still wins.
 */
function withOptions(url: string, options: string): { connectionString: string; options?: string } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { connectionString: url, options };
  }
  const own = parsed.searchParams.get("options");
  if (own === null) return { connectionString: url, options };
  parsed.searchParams.set("options", `${options} ${own}`);
  return { connectionString: parsed.toString() };
}

/** What every timed connection is opened with: the URL, the server limits, and keepalives. */
export function timedConnection(url: string, limits: PostgresLimits): pg.ClientConfig {
  return {
    ...withOptions(url, sessionOptions(limits)),
    keepAlive: true,
    keepAliveInitialDelayMillis: limits.keepAliveIdleMs,
    connectionTimeoutMillis: limits.connectMs,
  };
}

/**
 * A client that tells a COMMIT lost with its connection from any other failure: the server may
 * have committed before the connection went, so the unit's outcome is unknown, and the error says so.
 */
class TimedClient extends pg.Client {
  /** The server's transaction status at its last ReadyForQuery: I idle, T in a transaction, E failed. */
  transactionStatus = "I";

  constructor(config?: string | pg.ClientConfig) {
    super(config);
    // The server ends a session (its idle-in-transaction limit, a shutdown) also while the pool has
    // lent it out between two queries: the error event would end the process. The next query on it
    // fails instead, and the pool drops it when it comes back.
    this.on("error", () => undefined);
    (this as unknown as { connection: NodeJS.EventEmitter }).connection.on("readyForQuery", (msg: { status?: string }) => {
      this.transactionStatus = msg.status ?? "I";
    });
  }

  override query(...args: unknown[]): never {
    const result = (pg.Client.prototype.query as (...a: unknown[]) => unknown).apply(this, args);
    if (typeof args[0] === "string" && /^\s*commit\s*;?\s*$/i.test(args[0]) && result instanceof Promise) {
      return result.catch((err: unknown) => {
        throw isConnectionLost(err) ? commitInDoubt(err) : err;
      }) as never;
    }
    return result as never;
  }
}

/**
 * The store's pool: every connection timed (see PostgresLimits). A connection handed back inside a
 * transaction (a BEGIN whose lock wait timed out leaves one aborted) is rolled back before anyone
 * else gets it: the pool emits `release` before it lends the client again, and a client runs its
 * queries in order, so the ROLLBACK goes first.
 */
export function timedPool(url: string, limits: PostgresLimits, opts: { max: number; types?: pg.CustomTypesConfig }): pg.Pool {
  const pool = new pg.Pool({ ...timedConnection(url, limits), max: opts.max, types: opts.types, Client: TimedClient as unknown as typeof pg.Client });
  pool.on("release", (err, client) => {
    if (!err && client instanceof TimedClient && client.transactionStatus !== "I") void client.query("rollback").catch(() => undefined);
  });
  return pool;
}

/** A connection of its own (LISTEN, presence), timed as the pool's are. */
export function timedClient(url: string, limits: PostgresLimits): pg.Client {
  return new pg.Client(timedConnection(url, limits));
}

/**
 * A pool for the migrations: one connection with every timeout off, whatever the database's or the
 * role's defaults, since a migration may rewrite a large table or wait for another daemon's.
 */
export function untimedPool(url: string): pg.Pool {
  return new pg.Pool({ ...withOptions(url, UNTIMED), max: 1 });
}

/** Runs the store's migrations on an untimed connection of their own (see untimedPool). */
export async function migrateUntimed(url: string, migrate: (db: Kysely<Database>) => Promise<void>): Promise<void> {
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: untimedPool(url) }) });
  try {
    await migrate(db);
  } finally {
    await db.destroy();
  }
}
