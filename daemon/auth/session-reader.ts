// Session rows as authenticate reads them, kept in memory while the store's change key stands still.
// Every writer of the database moves that key (a logout, a refresh, an expiry sweep, another daemon
// on the same PostgreSQL database, a row deleted by hand), so a kept row is never older than the
// last write: the next request after any of them reads the table again. On SQLite the key is a
// counter read without a query, so a hit costs no SQL at all. Kept by token, not by
// its hash, so a hit does not hash either: the token is in this process's memory with every request
// that carries it anyway; only the database is kept free of it.
import { sha256Hex } from "../lib/sha256.js";
import type { SessionRow } from "../db/schema.js";
import type { Executor } from "../db/store.js";
import * as repo from "../db/auth-repo.js";

/** Enough for every session a busy daemon serves at once; past it the map starts over. */
const MAX_KEPT = 10_000;

/** How a token is named in the sessions table (its SHA-256): what streams and tickets key on. */
export const hashToken = (token: string): string => sha256Hex(token);

export interface SessionRead {
  tokenHash: string;
  row: SessionRow | undefined;
}

export interface SessionReader {
  /** The session row for a token, as of a change key read now. */
  find(token: string): Promise<SessionRead>;
  /** Drops what is kept for a token (this daemon is about to change or delete its row). */
  forget(token: string): void;
}

export function createSessionReader(deps: { db: Executor; changeKey: () => Promise<string> }): SessionReader {
  const kept = new Map<string, { key: string; tokenHash: string; row: SessionRow }>();
  return {
    async find(token) {
      // Read before the query whose result it keys: a write after this read moves it again.
      const key = await deps.changeKey();
      const hit = kept.get(token);
      if (hit && hit.key === key) return hit;
      const tokenHash = hit?.tokenHash ?? hashToken(token);
      const row = await repo.findSession(deps.db, tokenHash);
      if (!row) {
        kept.delete(token);
        return { tokenHash, row };
      }
      if (kept.size >= MAX_KEPT) kept.clear();
      kept.set(token, { key, tokenHash, row });
      return { tokenHash, row };
    },
    forget: (token) => void kept.delete(token),
  };
}
