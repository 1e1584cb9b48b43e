// A dense sequence (1, 2, 3... with no gap) is allocated by reading the last number and writing the
// next. On SQLite a write transaction is exclusive, so that is safe as it stands; on PostgreSQL two
// transactions would read the same last number. Taking the sequence's row in sequence_locks first
// makes them take turns: the upsert holds that row locked until the transaction ends, and the second
// writer's next statement (READ COMMITTED: a fresh snapshot) sees what the first committed.
import { sql, type SqlBool } from "kysely";
import type { Executor } from "./store.js";

/** Call inside a unit of work, before reading the sequence's last number. */
export async function lockSequence(db: Executor, name: string): Promise<void> {
  await db.insertInto("sequence_locks").values({ name })
    // DO UPDATE, not DO NOTHING: only DO UPDATE locks a row that already exists. Its WHERE false
    // updates nothing: PostgreSQL locks the row all the same, and SQLite writes no page (an updated
    // row was one more page in every commit's WAL sync; bench audit-write).
    .onConflict((oc) => oc.column("name").doUpdateSet({ name: (eb) => eb.ref("excluded.name") }).where(sql<SqlBool>`false`))
    .execute();
}
