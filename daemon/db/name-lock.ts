// A unit of work that reads then writes what no single row guards (the last number of a dense
// sequence 1, 2, 3..., a tally whose row may not exist yet) takes a named lock first. On SQLite a
// write transaction is exclusive, so that is safe as it stands; on PostgreSQL two transactions would
// read the same value. The name's row in sequence_locks makes them take turns: the upsert holds that
// row locked until the transaction ends, and the second writer's next statement (READ COMMITTED: a
// fresh snapshot) sees what the first committed.
import { sql } from "kysely";
import type { Executor } from "./store.js";

/** Call inside a unit of work, before reading what it guards (a sequence's last number, a tally). */
export async function lockName(db: Executor, name: string): Promise<void> {
  // DO UPDATE, not DO NOTHING: only DO UPDATE locks a row that already exists. Its WHERE false
  // updates nothing: PostgreSQL locks the row all the same, and SQLite writes no page (an updated
  // row was one more page in every commit's WAL sync; bench audit-write). Raw SQL, the same on both
  // stores: it runs once per batch of fills, and kysely's builder cost more than the statement.
  await sql`insert into sequence_locks (name) values (${name}) on conflict (name) do update set name = excluded.name where false`.execute(db);
}
