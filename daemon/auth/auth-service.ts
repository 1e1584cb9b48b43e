// Sign-in and sessions (SPEC section 5, DESIGN section 5). A challenge writes nothing: its nonce is
// an HMAC under the daemons' shared key (sign-in-nonce.ts). A login whose signature checks out spends
// the nonce in the same commit as the session insert, so a garbage signature cannot burn someone
// else's nonce and two concurrent logins with one nonce yield one session (the spent nonce's key).
import { randomBytes } from "node:crypto";
import type { Executor, UnitOfWork } from "../db/store.js";
import type { SessionRow } from "../db/schema.js";
import * as repo from "../db/auth-repo.js";
import { AppError } from "../errors.js";
import { createEventTickets } from "./event-tickets.js";
import { createSessionReader, hashToken } from "./session-reader.js";
import { challengeMessage, type SignInOrigin } from "./sign-in-message.js";
import { mintNonce, openNonce } from "./sign-in-nonce.js";
import { recoverSigner } from "./signer.js";
import type { SignerPool } from "./signer-pool.js";

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
  /**
   * Which of these sessions (AuthUser.sessionKey) still live, read from the store: a logout on
   * another daemon, or an expiry, shows here.
   */
  liveSessions(sessionKeys: string[]): Promise<Set<string>>;
}

const rejected = (message: string) => new AppError("UNAUTHENTICATED", message, { next: [{ action: "signIn" }] });

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
  /** Where the signature check runs (the daemon's: a worker thread); on the event loop without one. */
  signers?: Pick<SignerPool, "recover" | "warm">;
}): AuthService {
  const { db, work, clock } = deps;
  const settings = { ...DEFAULT_AUTH_SETTINGS, ...deps.settings };
  const signers = deps.signers ?? { recover: async (message: string, signature: string) => recoverSigner(message, signature), warm: () => undefined };
  // Spent nonces and ended sessions are swept at most once a minute, in a login's commit: login and
  // authenticate check expiry themselves, so the sweep only keeps the tables small. A spent nonce is
  // kept a while past its expiry, so a daemon whose clock runs behind still finds it spent.
  const SWEEP_EVERY_MS = 60_000;
  const SPENT_KEPT_AFTER_EXPIRY_MS = 10 * 60_000;
  /** How far another daemon's clock may run ahead of this one's when it issues a challenge. */
  const MAX_CLOCK_AHEAD_MS = 5 * 60_000;
  let lastSweep = -Infinity;
  const tickets = createEventTickets({ db, work: deps.work, clock });
  const sessions = createSessionReader({ db, changeKey: deps.changeKey });
  const key = signInKey(db, clock);
  // One reading of a session row, for authenticate and known alike.
  const expired = (s: SessionRow, now: number) => s.expires_at <= now || s.absolute_expires_at <= now;
  const refreshDue = (s: SessionRow, now: number) => now - s.refreshed_at >= settings.refreshEveryMs;
  const asUser = (s: SessionRow, tokenHash: string): AuthUser => ({ address: s.address, sessionExpiresAt: s.expires_at, sessionKey: tokenHash });

  return {
    async challenge(address, requestOrigin) {
      signers.warm();
      const issuedAt = clock();
      const own = deps.origin();
      const publicUrl = requestOrigin && deps.allowedOrigins().has(requestOrigin) ? requestOrigin : own.publicUrl;
      const origin = { publicUrl, chainId: own.chainId };
      const expiresAt = issuedAt + settings.nonceTtlMs;
      const nonce = mintNonce(await key(), { origin: new URL(publicUrl).origin, chainId: own.chainId, address, issuedAt, expiresAt });
      return { message: challengeMessage(origin, { address, nonce, issuedAt, expiresAt }), nonce, expiresAt };
    },

    async login({ address, signature, nonce }) {
      const now = clock();
      const { chainId } = deps.origin();
      // Only the origins allowed now: a message naming a site the daemon no longer trusts signs nobody in.
      const issued = openNonce(await key(), nonce, { address, chainId, origins: originsOf(deps.allowedOrigins()) });
      if (!issued) throw rejected("unknown nonce, or one issued to another address or for a site this daemon does not allow; request a new challenge");
      if (issued.expiresAt <= now) throw rejected("the challenge has expired; request a new challenge");
      // Minted with the key but not as this daemon mints (the key read from the database): a message
      // a wallet signs lives no longer than a challenge does.
      if (issued.expiresAt - issued.issuedAt > settings.nonceTtlMs || issued.issuedAt > now + MAX_CLOCK_AHEAD_MS) {
        throw rejected("this challenge was not issued by tradevault; request a new challenge");
      }
      const message = challengeMessage({ publicUrl: issued.origin, chainId }, { address, nonce, issuedAt: issued.issuedAt, expiresAt: issued.expiresAt });
      if ((await signers.recover(message, signature)) !== address.toLowerCase()) {
        throw rejected("the signature was not made by this address over the issued message");
      }

      const sessionToken = randomBytes(32).toString("base64url");
      const expiresAt = now + settings.sessionTtlMs;
      const sweep = now - lastSweep >= SWEEP_EVERY_MS;
      if (sweep) lastSweep = now;
      const spent = await work.write(async (trx) => {
        if (sweep) await repo.deleteExpired(trx, now, now - SPENT_KEPT_AFTER_EXPIRY_MS);
        return repo.recordLogin(trx, { nonce, expiresAt: issued.expiresAt }, {
          token_hash: hashToken(sessionToken),
          address,
          created_at: now,
          refreshed_at: now,
          expires_at: expiresAt,
          absolute_expires_at: now + settings.sessionMaxAgeMs,
        });
      });
      if (!spent) throw rejected("this nonce was already used; request a new challenge");
      return { address, sessionToken, expiresAt };
    },

    async authenticate(token) {
      const now = clock();
      const { tokenHash, row: session } = await sessions.find(token);
      if (!session) throw rejected("not signed in, or the session has ended");
      if (expired(session, now)) {
        sessions.forget(token);
        await repo.deleteSession(db, tokenHash);
        throw rejected("the session has expired; sign in again");
      }
      if (!refreshDue(session, now)) return asUser(session, tokenHash);
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
    liveSessions: (sessionKeys) => repo.liveSessionKeys(db, sessionKeys, clock()),

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

/** The shared sign-in key, read (or created) once per daemon; a failed read is tried again next time. */
function signInKey(db: Executor, clock: () => number): () => Promise<Buffer> {
  let key: Promise<Buffer> | undefined;
  return () => {
    key ??= repo.sharedSecret(db, "sign-in", () => randomBytes(32).toString("hex"), clock()).then(
      (hex) => Buffer.from(hex, "hex"),
      (err: unknown) => {
        key = undefined;
        throw err;
      },
    );
    return key;
  };
}

/** The allowed origins as URL.origin lays them out (what a challenge's nonce was minted over). */
function* originsOf(allowed: Set<string>): Generator<string> {
  for (const o of allowed) if (URL.canParse(o)) yield new URL(o).origin;
}
