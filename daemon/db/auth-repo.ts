// Users, sign-in nonces and sessions. Plain functions over an executor; rows stay snake_case here
// and the auth service maps what it needs.
import type { Executor } from "./store.js";
import type { NewSession, NonceRow, SessionRow } from "./schema.js";

export async function insertNonce(db: Executor, row: NonceRow): Promise<void> {
  await db.insertInto("auth_nonces").values(row).execute();
}

export function findNonce(db: Executor, nonce: string): Promise<NonceRow | undefined> {
  return db.selectFrom("auth_nonces").selectAll().where("nonce", "=", nonce).executeTakeFirst();
}

export async function deleteExpired(db: Executor, now: number): Promise<void> {
  await db.deleteFrom("auth_nonces").where("expires_at", "<=", now).execute();
  await db.deleteFrom("sessions").where("expires_at", "<=", now).execute();
}

/** Deletes the nonce if it is still live and bound to `address`; true when this call consumed it. */
export async function consumeNonce(db: Executor, nonce: string, address: string, now: number): Promise<boolean> {
  const r = await db
    .deleteFrom("auth_nonces")
    .where("nonce", "=", nonce)
    .where("address", "=", address)
    .where("expires_at", ">", now)
    .executeTakeFirst();
  return Number(r.numDeletedRows) === 1;
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
