// Users, sign-in nonces and sessions. Plain functions over the store; rows stay snake_case here and
// the auth service maps what it needs.
import type { Kysely } from "kysely";
import type { SyncExecutor } from "./database.js";
import type { Database, NewSession, NonceRow, SessionRow } from "./schema.js";

export function insertNonce(db: Kysely<Database>, x: SyncExecutor, row: NonceRow): void {
  x.run(db.insertInto("auth_nonces").values(row).compile());
}

export function findNonce(db: Kysely<Database>, x: SyncExecutor, nonce: string): NonceRow | undefined {
  return x.get(db.selectFrom("auth_nonces").selectAll().where("nonce", "=", nonce).compile());
}

export function deleteExpired(db: Kysely<Database>, x: SyncExecutor, now: number): void {
  x.run(db.deleteFrom("auth_nonces").where("expires_at", "<=", now).compile());
  x.run(db.deleteFrom("sessions").where("expires_at", "<=", now).compile());
}

/** Deletes the nonce if it is still live and bound to `address`; true when this call consumed it. */
export function consumeNonce(db: Kysely<Database>, x: SyncExecutor, nonce: string, address: string, now: number): boolean {
  const q = db
    .deleteFrom("auth_nonces")
    .where("nonce", "=", nonce)
    .where("address", "=", address)
    .where("expires_at", ">", now)
    .compile();
  return x.run(q).changes === 1;
}

export function ensureUser(db: Kysely<Database>, x: SyncExecutor, address: string, now: number): void {
  x.run(
    db
      .insertInto("users")
      .values({ address, created_at: now })
      .onConflict((oc) => oc.column("address").doNothing())
      .compile(),
  );
}

export function insertSession(db: Kysely<Database>, x: SyncExecutor, row: NewSession): void {
  x.run(db.insertInto("sessions").values(row).compile());
}

export function findSession(db: Kysely<Database>, x: SyncExecutor, tokenHash: string): SessionRow | undefined {
  return x.get(db.selectFrom("sessions").selectAll().where("token_hash", "=", tokenHash).compile());
}

export function refreshSession(
  db: Kysely<Database>,
  x: SyncExecutor,
  tokenHash: string,
  refreshedAt: number,
  expiresAt: number,
): void {
  x.run(
    db
      .updateTable("sessions")
      .set({ refreshed_at: refreshedAt, expires_at: expiresAt })
      .where("token_hash", "=", tokenHash)
      .compile(),
  );
}

export function deleteSession(db: Kysely<Database>, x: SyncExecutor, tokenHash: string): boolean {
  return x.run(db.deleteFrom("sessions").where("token_hash", "=", tokenHash).compile()).changes === 1;
}
