// Single-use tickets for opening the event stream from another site: `EventSource` can send neither
// a Bearer header nor (cross-site) a SameSite=Strict cookie, so an authenticated page first takes a
// ticket and puts it in the stream's URL. A ticket works once, for 60 seconds, for the user and
// session that took it (a logout still ends the stream). Only its SHA-256 is kept, in memory: a
// restart ends every stream anyway, and the page takes a new ticket when it reconnects.
import { randomBytes } from "node:crypto";
import { sha256Hex } from "../lib/sha256.js";
import { AppError } from "../errors.js";
import type { AuthUser } from "./auth-service.js";

export const TICKET_TTL_MS = 60_000;

const hash = (ticket: string) => sha256Hex(ticket);

export function createEventTickets(clock: () => number) {
  const live = new Map<string, { user: AuthUser; expiresAt: number }>();

  const sweep = (now: number) => {
    for (const [key, t] of live) if (t.expiresAt <= now) live.delete(key);
  };

  return {
    issue(user: AuthUser): { ticket: string; expiresAt: number } {
      const now = clock();
      sweep(now);
      const ticket = randomBytes(32).toString("base64url");
      const expiresAt = now + TICKET_TTL_MS;
      live.set(hash(ticket), { user, expiresAt });
      return { ticket, expiresAt };
    },

    /** The user the ticket was issued to; it is spent by this call. */
    redeem(ticket: string): AuthUser {
      const key = hash(ticket);
      const t = live.get(key);
      live.delete(key);
      if (!t || t.expiresAt <= clock()) {
        throw new AppError("UNAUTHENTICATED", "unknown, used or expired event ticket: take a new one (POST /api/events/ticket)");
      }
      return t.user;
    },
  };
}

export type EventTickets = ReturnType<typeof createEventTickets>;
