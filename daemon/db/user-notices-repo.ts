// Notices addressed to one user, each stored once under its key (notices/user-notices.ts).
import { sql } from "kysely";
import { lockName } from "./name-lock.js";
import type { Executor } from "./store.js";
import type { UserNoticeRow } from "./schema.js";

/** Stores the notice with the next id (call inside a unit of work); undefined when one under the same key is already stored. */
export async function insertNotice(db: Executor, row: Omit<UserNoticeRow, "id">): Promise<UserNoticeRow | undefined> {
  await lockName(db, "user_notices.id");
  const stored = await db.insertInto("user_notices")
    .values({ ...row, id: sql<number>`(select coalesce(max(id), 0) + 1 from user_notices)` })
    .onConflict((oc) => oc.column("key").doNothing())
    .returning("id")
    .executeTakeFirst();
  return stored && { ...row, id: Number(stored.id) };
}

export function noticeById(db: Executor, id: number): Promise<UserNoticeRow | undefined> {
  return db.selectFrom("user_notices").selectAll().where("id", "=", id).executeTakeFirst();
}

/** A user's notices, newest first (the index on user and time serves it). */
export function noticesFor(db: Executor, user: string, limit: number, offset = 0): Promise<UserNoticeRow[]> {
  return db.selectFrom("user_notices").selectAll().where("user", "=", user)
    .orderBy("created_at", "desc").orderBy("id", "desc").limit(limit).offset(offset).execute();
}

export async function countNotices(db: Executor, user: string): Promise<number> {
  const row = await db.selectFrom("user_notices").select((eb) => eb.fn.countAll<number>().as("n")).where("user", "=", user).executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** Which of `keys` are stored. */
export async function storedKeys(db: Executor, keys: string[]): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  const rows = await db.selectFrom("user_notices").select("key").where("key", "in", keys).execute();
  return new Set(rows.map((r) => r.key));
}
