// Kysely's view of the database: one interface per table. Columns are snake_case; repositories map
// rows to camelCase objects. Times are Unix milliseconds (INTEGER) unless a column says otherwise.
import type { Generated, Insertable, Selectable } from "kysely";

export interface UsersTable {
  address: string; // EIP-55
  created_at: number;
}

export interface AuthNoncesTable {
  nonce: string;
  address: string; // EIP-55, the address the nonce was issued to
  message: string; // the exact EIP-4361 text the daemon issued
  issued_at: number;
  expires_at: number;
}

export interface SessionsTable {
  token_hash: string; // hex SHA-256 of the token; the token itself is never stored
  address: string;
  created_at: number;
  refreshed_at: number;
  expires_at: number; // sliding: refreshed_at + session lifetime
  absolute_expires_at: number; // cap that no refresh moves
}

export interface MigrationMarker {
  id: Generated<number>;
}

export interface Database {
  users: UsersTable;
  auth_nonces: AuthNoncesTable;
  sessions: SessionsTable;
}

export type UserRow = Selectable<UsersTable>;
export type SessionRow = Selectable<SessionsTable>;
export type NewSession = Insertable<SessionsTable>;
export type NonceRow = Selectable<AuthNoncesTable>;
