// Notices addressed to one user, each stored once under its key (alerts/user-notices.ts).
import type { Executor } from "./store.js";
import type { UserNoticeRow } from "./schema.js";

/** Stores the notice; false when one under the same key is already stored (nothing changes). */
export async function insertNotice(db: Executor, row: UserNoticeRow): Promise<boolean> {
  const stored = await db.insertInto("user_notices").values(row)
    .onConflict((oc) => oc.column("key").doNothing())
    .returning("key")
    .executeTakeFirst();
  return stored !== undefined;
}

/** A user's notices, newest first. */
export function noticesFor(db: Executor, user: string, limit: number): Promise<UserNoticeRow[]> {
  return db.selectFrom("user_notices").selectAll().where("user", "=", user)
    .orderBy("created_at", "desc").orderBy("key", "desc").limit(limit).execute();
}

/** Which of `keys` are stored. */
export async function storedKeys(db: Executor, keys: string[]): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  const rows = await db.selectFrom("user_notices").select("key").where("key", "in", keys).execute();
  return new Set(rows.map((r) => r.key));
}
