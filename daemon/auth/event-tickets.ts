// Single-use tickets for opening the event stream from another site: `EventSource` can send neither
// a Bearer header nor (cross-site) a SameSite=Strict cookie, so an authenticated page first takes a
// ticket and puts it in the stream's URL. A ticket works once, for 60 seconds, for the user and
// session that took it (a logout still ends the stream). Only its SHA-256 is kept, in the store, so a
// ticket taken from one daemon opens the stream on any daemon sharing the database; spending it is
// one delete, so two daemons cannot both accept it.
import { randomBytes } from "node:crypto";
import * as repo from "../db/auth-repo.js";
import type { Executor, UnitOfWork } from "../db/store.js";
import { sha256Hex } from "../lib/sha256.js";
import { AppError } from "../errors.js";
import type { AuthUser } from "./auth-service.js";

export const TICKET_TTL_MS = 60_000;

const hash = (ticket: string) => sha256Hex(ticket);

export function createEventTickets(deps: { db: Executor; work: UnitOfWork; clock: () => number }) {
  const { work, clock } = deps;
  return {
    async issue(user: AuthUser): Promise<{ ticket: string; expiresAt: number }> {
      const now = clock();
      const ticket = randomBytes(32).toString("base64url");
      const expiresAt = now + TICKET_TTL_MS;
      // Relaxed: a ticket lost to a power cut costs the page one more request.
      await work.relaxed(async (trx) => {
        await repo.pruneTickets(trx, now);
        await repo.insertTicket(trx, { hash: hash(ticket), address: user.address, session_key: user.sessionKey, expires_at: expiresAt });
      });
      return { ticket, expiresAt };
    },

    /** The user and session the ticket was issued to; it is spent by this call. */
    async redeem(ticket: string): Promise<{ address: string; sessionKey: string }> {
      const t = await work.relaxed((trx) => repo.takeTicket(trx, hash(ticket)));
      if (!t || t.expires_at <= clock()) {
        throw new AppError("UNAUTHENTICATED", "unknown, used or expired event ticket", { next: [{ action: "takeEventTicket" }] });
      }
      return { address: t.address, sessionKey: t.session_key };
    },
  };
}
