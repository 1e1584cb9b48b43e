// Sign-in and sessions (SPEC section 5, DESIGN section 5). The nonce is consumed only by a login
// whose signature checks out, atomically with the session insert, so a garbage signature cannot burn
// someone else's nonce and two concurrent logins with one nonce yield one session.
import { randomBytes } from "node:crypto";
import { verifyMessage } from "ethers";
import type { Executor, UnitOfWork } from "../db/store.js";
import * as repo from "../db/auth-repo.js";
import { AppError } from "../errors.js";
import { createEventTickets } from "./event-tickets.js";
import { createSessionReader, hashToken } from "./session-reader.js";
import { buildChallenge, signedOrigin, type SignInOrigin } from "./sign-in-message.js";

export interface AuthSettings {
  nonceTtlMs: number;
  sessionTtlMs: number;
  sessionMaxAgeMs: number;
  /** Sliding expiry is written at most this often, so reads do not each cost a disk sync. */
  refreshEveryMs: number;
}

export const DEFAULT_AUTH_SETTINGS: AuthSettings = {
  nonceTtlMs: 5 * 60_000,
  sessionTtlMs: 24 * 3600_000,
  sessionMaxAgeMs: 30 * 24 * 3600_000,
  refreshEveryMs: 60_000,
};

export interface AuthUser {
  address: string;
  sessionExpiresAt: number;
  /** Names the session without being its secret (the token's SHA-256, as stored): what streams key on. */
  sessionKey: string;
}

export interface LoginResult {
  address: string;
  sessionToken: string;
  expiresAt: number;
}

export interface AuthService {
  /**
   * `requestOrigin`: the browser page asking (its Origin header), when it is one the daemon allows;
   * the message then names it (EIP-4361: the domain requesting the signature). Otherwise --public-url.
   */
  challenge(address: string, requestOrigin?: string): Promise<{ message: string; nonce: string; expiresAt: number }>;
  login(input: { address: string; signature: string; nonce: string }): Promise<LoginResult>;
  authenticate(token: string): Promise<AuthUser>;
  logout(token: string): Promise<void>;
  /** A single-use, 60-second ticket that opens the event stream as `user` (for EventSource across sites). */
  issueTicket(user: AuthUser): Promise<{ ticket: string; expiresAt: number }>;
  /** Spends a ticket; the user it was issued to, while that session still lives. */
  redeemTicket(ticket: string): Promise<AuthUser>;
}

const rejected = (message: string) => new AppError("UNAUTHENTICATED", message);

export function createAuthService(deps: {
  db: Executor;
  work: UnitOfWork;
  /** The store's change key: a session row is read again whenever it moves (session-reader.ts). */
  changeKey: () => Promise<string>;
  origin: () => SignInOrigin;
  /** Origins a sign-in message may name: the daemon's own and the configured CORS origins. */
  allowedOrigins: () => Set<string>;
  clock: () => number;
  settings?: Partial<AuthSettings>;
}): AuthService {
  const { db, work, clock } = deps;
  const settings = { ...DEFAULT_AUTH_SETTINGS, ...deps.settings };
  // Expired nonces and sessions are swept at most once a minute, not on every challenge: login and
  // authenticate check expiry themselves, so the sweep only keeps the tables small.
  const SWEEP_EVERY_MS = 60_000;
  let lastSweep = -Infinity;
  const tickets = createEventTickets({ db, work: deps.work, clock });
  const sessions = createSessionReader({ db, changeKey: deps.changeKey });

  return {
    async challenge(address, requestOrigin) {
      const now = clock();
      const own = deps.origin();
      const origin = requestOrigin && deps.allowedOrigins().has(requestOrigin) ? { ...own, publicUrl: requestOrigin } : own;
      const c = buildChallenge(origin, address, now, settings.nonceTtlMs);
      // Not synced to disk: a nonce lost to a power cut costs one more challenge, and the fsync was a
      // third of a sign-in's time (bench login). The session a login creates is durable.
      const sweep = now - lastSweep >= SWEEP_EVERY_MS;
      if (sweep) lastSweep = now;
      await work.relaxed(async (trx) => {
        if (sweep) await repo.deleteExpired(trx, now);
        await repo.insertNonce(trx, {
          nonce: c.nonce,
          address,
          message: c.message,
          issued_at: c.issuedAt,
          expires_at: c.expiresAt,
        });
      });
      return { message: c.message, nonce: c.nonce, expiresAt: c.expiresAt };
    },

    async login({ address, signature, nonce }) {
      const now = clock();
      const issued = await repo.findNonce(db, nonce);
      if (!issued || issued.expires_at <= now) throw rejected("unknown or expired nonce; request a new challenge");
      if (issued.address !== address) throw rejected("this nonce was issued to another address");
      // Verified against the origins allowed now, never the request's Host: a message naming a site
      // the daemon no longer trusts does not sign anyone in.
      const domain = signedOrigin(issued.message);
      if (!domain || !deps.allowedOrigins().has(domain)) throw rejected("the sign-in message names a site this daemon does not allow");
      let signer: string;
      try {
        signer = verifyMessage(issued.message, signature);
      } catch {
        throw rejected("the signature cannot be verified");
      }
      if (signer !== address) throw rejected("the signature was not made by this address over the issued message");

      const sessionToken = randomBytes(32).toString("base64url");
      const expiresAt = now + settings.sessionTtlMs;
      // Grouped: sign-ins verified in the same turn of the event loop share one durable commit.
      const consumed = await work.grouped(async (trx) => {
        if (!(await repo.consumeNonce(trx, nonce, address, now))) return false;
        await repo.ensureUser(trx, address, now);
        await repo.insertSession(trx, {
          token_hash: hashToken(sessionToken),
          address,
          created_at: now,
          refreshed_at: now,
          expires_at: expiresAt,
          absolute_expires_at: now + settings.sessionMaxAgeMs,
        });
        return true;
      });
      if (!consumed) throw rejected("this nonce was already used; request a new challenge");
      return { address, sessionToken, expiresAt };
    },

    async authenticate(token) {
      const now = clock();
      const { tokenHash, row: session } = await sessions.find(token);
      if (!session) throw rejected("not signed in, or the session has ended");
      if (session.expires_at <= now || session.absolute_expires_at <= now) {
        sessions.forget(token);
        await repo.deleteSession(db, tokenHash);
        throw rejected("the session has expired; sign in again");
      }
      if (now - session.refreshed_at < settings.refreshEveryMs) {
        return { address: session.address, sessionExpiresAt: session.expires_at, sessionKey: tokenHash };
      }
      const expiresAt = Math.min(now + settings.sessionTtlMs, session.absolute_expires_at);
      sessions.forget(token);
      await repo.refreshSession(db, tokenHash, now, expiresAt);
      return { address: session.address, sessionExpiresAt: expiresAt, sessionKey: tokenHash };
    },

    async logout(token) {
      sessions.forget(token);
      await repo.deleteSession(db, hashToken(token));
    },

    issueTicket: (user) => tickets.issue(user),

    async redeemTicket(ticket) {
      const t = await tickets.redeem(ticket);
      const session = await repo.findSession(db, t.sessionKey);
      if (!session || session.expires_at <= clock() || session.absolute_expires_at <= clock()) {
        throw rejected("the session that took this ticket has ended; sign in again");
      }
      return { address: t.address, sessionKey: t.sessionKey, sessionExpiresAt: session.expires_at };
    },
  };
}
