// Session rows as authenticate reads them, kept in memory while the store's change key stands still.
// Every writer of the database moves that key (a logout, a refresh, an expiry sweep, another daemon
// on the same PostgreSQL database, a row deleted by hand), so a kept row is never older than the
// last write: the next request after any of them reads the table again. On SQLite the key is a
// counter read without a query; there a hit costs no SQL at all (bench http-read).
import type { SessionRow } from "../db/schema.js";
import type { Executor } from "../db/store.js";
import * as repo from "../db/auth-repo.js";

/** Enough for every session a busy daemon serves at once; past it the map starts over. */
const MAX_KEPT = 10_000;

export interface SessionReader {
  /** The session row for a token hash, as of a change key read now. */
  find(tokenHash: string): Promise<SessionRow | undefined>;
  /** Drops what is kept for a token hash (this daemon just changed or deleted its row). */
  forget(tokenHash: string): void;
}

export function createSessionReader(deps: { db: Executor; changeKey: () => Promise<string> }): SessionReader {
  const kept = new Map<string, { key: string; row: SessionRow }>();
  return {
    async find(tokenHash) {
      // Read before the query whose result it keys: a write after this read moves it again.
      const key = await deps.changeKey();
      const hit = kept.get(tokenHash);
      if (hit && hit.key === key) return hit.row;
      const row = await repo.findSession(deps.db, tokenHash);
      if (!row) {
        kept.delete(tokenHash);
        return undefined;
      }
      if (kept.size >= MAX_KEPT) kept.clear();
      kept.set(tokenHash, { key, row });
      return row;
    },
    forget: (tokenHash) => void kept.delete(tokenHash),
  };
}
