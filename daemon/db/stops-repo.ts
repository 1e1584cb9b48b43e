// The stops table (vaults/stop-keeper.ts): a protective trigger is stored with its order, in the
// order's commit, and changes state only by conditional updates, so keepers on daemons sharing the
// store never record a stop's event twice or send two closes for it at once.
import type { Executor } from "./store.js";
import type { NewStop, StopRow, StopsTable } from "./schema.js";

export async function insertStops(db: Executor, rows: NewStop[]): Promise<void> {
  if (rows.length > 0) await db.insertInto("stops").values(rows).execute();
}

/** The exchange's order id once it answered; a stop it refused is done at once. */
export async function placed(db: Executor, cloid: string, answer: { oid: number } | { rejected: string }, now: number): Promise<void> {
  const set = "oid" in answer
    ? { oid: answer.oid, updated_at: now }
    : { state: "done" as const, outcome: "rejected", reason: answer.rejected, updated_at: now };
  await db.updateTable("stops").set(set).where("cloid", "=", cloid).where("state", "=", "armed").execute();
}

/** Stops still watched, oldest first. */
export function liveStops(db: Executor, limit: number): Promise<StopRow[]> {
  return db.selectFrom("stops").selectAll().where("state", "in", ["armed", "fired"]).orderBy("created_at").limit(limit).execute();
}

export function findStop(db: Executor, cloid: string): Promise<StopRow | undefined> {
  return db.selectFrom("stops").selectAll().where("cloid", "=", cloid).executeTakeFirst();
}

type StopChange = Partial<Pick<StopsTable, "state" | "outcome" | "position_seen" | "reason" | "close_cloid" | "oid">> & { attempts?: number; next_try_at?: number };

/**
 * Changes a stop that is still in `from` (and, when given, still has `nextTryAt`): true when this
 * call changed it, false when another writer got there first.
 */
export async function moveStop(
  db: Executor, cloid: string, from: StopRow["state"], change: StopChange, now: number, nextTryAt?: number,
): Promise<boolean> {
  let q = db.updateTable("stops").set({ ...change, updated_at: now }).where("cloid", "=", cloid).where("state", "=", from);
  if (nextTryAt !== undefined) q = q.where("next_try_at", "=", nextTryAt);
  return Number((await q.executeTakeFirst()).numUpdatedRows) > 0;
}

/** A cancel the daemon sent for the account's order: the stop it was ends, canceled on purpose. */
export async function canceledByDaemon(db: Executor, account: string, oid: number, now: number): Promise<void> {
  await db.updateTable("stops").set({ state: "done", outcome: "canceled", updated_at: now })
    .where("account", "=", account).where("oid", "=", oid).where("state", "=", "armed").execute();
}

/** The account's fired stops: their closes are under way. */
export function firedOf(db: Executor, account: string): Promise<StopRow[]> {
  return db.selectFrom("stops").selectAll().where("state", "=", "fired").where("account", "=", account).execute();
}
