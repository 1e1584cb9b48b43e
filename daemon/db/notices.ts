// Wake-ups between daemons sharing a PostgreSQL database: a writer notifies a channel inside its
// transaction (PostgreSQL delivers the notice at commit, never for a rollback), and every daemon
// listening on it reads the table at once instead of at its next poll. A notice only wakes (its
// payload, the event's id, is for tests and logs): the table is the truth, the poll the backstop (a
// listener misses notices while it reconnects).
import { sql } from "kysely";
import { onPostgres } from "./batches.js";
import type { Executor } from "./store.js";

/** New rows in vault_events. */
export const EVENTS_CHANNEL = "tradevault_events";

/** Notifies `channel` at the commit of the transaction `db` runs in; nothing on SQLite (one daemon). */
export async function notifyAtCommit(db: Executor, channel: string, payload = ""): Promise<void> {
  if (!onPostgres(db)) return;
  await sql`select pg_notify(${channel}, ${payload})`.execute(db);
}
