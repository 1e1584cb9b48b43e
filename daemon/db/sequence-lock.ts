// A dense sequence (1, 2, 3... with no gap) is allocated by reading the last number and writing the
// next. On SQLite a write transaction is exclusive, so that is safe as it stands; on PostgreSQL two
// transactions would read the same last number. Taking the sequence's row in sequence_locks first
// makes them take turns: the upsert holds that row locked until the transaction ends, and the second
// writer's next statement (READ COMMITTED: a fresh snapshot) sees what the first committed.
import type { Executor } from "./store.js";

/** Call inside a unit of work, before reading the sequence's last number. */
export async function lockSequence(db: Executor, name: string): Promise<void> {
  await db.insertInto("sequence_locks").values({ name })
    // DO UPDATE, not DO NOTHING: only an update locks the row when it already exists.
    .onConflict((oc) => oc.column("name").doUpdateSet({ name: (eb) => eb.ref("excluded.name") }))
    .execute();
}
