// Users, the sign-in key and spent nonces, and sessions. Plain functions over an executor; rows stay snake_case here
// and the auth service maps what it needs.
import { sql } from "kysely";
import type { Executor } from "./store.js";
import type { NewSession, SessionRow } from "./schema.js";

/**
 * The secret named `name`, created with `fresh` by whichever daemon asks first: every daemon on the
 * database reads the same row (on PostgreSQL two first askers race; the key keeps one row).
 */
export async function sharedSecret(db: Executor, name: string, fresh: () => string, now: number): Promise<string> {
  await db.insertInto("auth_keys").values({ name, secret: fresh(), created_at: now }).onConflict((oc) => oc.column("name").doNothing()).execute();
  const row = await db.selectFrom("auth_keys").select("secret").where("name", "=", name).executeTakeFirstOrThrow();
  return row.secret;
}

/**
 * A login's writes, inside its unit of work: spends the challenge's nonce and, when this login is the
 * first to spend it, records the user and inserts the session; false, with nothing written, when a
 * login spent it already (the primary key). Raw SQL, the same on both stores, and each text always the
 * same, so the SQLite store's statement cache prepares it once: kysely's builder cost a sign-in more
 * than these three statements (bench login).
 */
export async function recordLogin(db: Executor, nonce: { nonce: string; expiresAt: number }, s: NewSession): Promise<boolean> {
  const spent = await sql`insert into auth_used_nonces (nonce, expires_at) values (${nonce.nonce}, ${nonce.expiresAt})
    on conflict (nonce) do nothing returning nonce`.execute(db);
  if (spent.rows.length === 0) return false;
  await sql`insert into users (address, created_at) values (${s.address}, ${s.created_at}) on conflict (address) do nothing`.execute(db);
  await sql`insert into sessions (token_hash, address, created_at, refreshed_at, expires_at, absolute_expires_at)
    values (${s.token_hash}, ${s.address}, ${s.created_at}, ${s.refreshed_at}, ${s.expires_at}, ${s.absolute_expires_at})`.execute(db);
  return true;
}

/** Spent nonces that expired before `before` (a replay of them fails the expiry check) and ended sessions. */
export async function deleteExpired(db: Executor, now: number, spentBefore: number): Promise<void> {
  await db.deleteFrom("auth_used_nonces").where("expires_at", "<=", spentBefore).execute();
  await db.deleteFrom("sessions").where("expires_at", "<=", now).execute();
}

export async function ensureUser(db: Executor, address: string, now: number): Promise<void> {
  await db.insertInto("users").values({ address, created_at: now }).onConflict((oc) => oc.column("address").doNothing()).execute();
}

export async function insertSession(db: Executor, row: NewSession): Promise<void> {
  await db.insertInto("sessions").values(row).execute();
}

export function findSession(db: Executor, tokenHash: string): Promise<SessionRow | undefined> {
  return db.selectFrom("sessions").selectAll().where("token_hash", "=", tokenHash).executeTakeFirst();
}

/** Which of these sessions (by token hash) still live at `now`: one query for every open stream. */
export async function liveSessionKeys(db: Executor, tokenHashes: string[], now: number): Promise<Set<string>> {
  if (tokenHashes.length === 0) return new Set();
  const rows = await db.selectFrom("sessions").select("token_hash").where("token_hash", "in", tokenHashes)
    .where("expires_at", ">", now).where("absolute_expires_at", ">", now).execute();
  return new Set(rows.map((r) => r.token_hash));
}

export async function refreshSession(db: Executor, tokenHash: string, refreshedAt: number, expiresAt: number): Promise<void> {
  await db.updateTable("sessions").set({ refreshed_at: refreshedAt, expires_at: expiresAt }).where("token_hash", "=", tokenHash).execute();
}

export async function deleteSession(db: Executor, tokenHash: string): Promise<boolean> {
  const r = await db.deleteFrom("sessions").where("token_hash", "=", tokenHash).executeTakeFirst();
  return Number(r.numDeletedRows) === 1;
}

export async function insertTicket(db: Executor, row: { hash: string; address: string; session_key: string; expires_at: number }): Promise<void> {
  await db.insertInto("event_tickets").values(row).execute();
}

/** Spends a ticket: deletes it and hands back what it was (undefined when unknown or spent already). */
export async function takeTicket(db: Executor, hash: string) {
  return db.deleteFrom("event_tickets").where("hash", "=", hash).returning(["address", "session_key", "expires_at"]).executeTakeFirst();
}

export async function pruneTickets(db: Executor, now: number): Promise<void> {
  await db.deleteFrom("event_tickets").where("expires_at", "<=", now).execute();
}
