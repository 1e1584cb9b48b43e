// Reads the session from the `session` cookie or `Authorization: Bearer <token>` (for clients that
// cannot send a SameSite=Strict cookie). A bad token is not an error here: routes that need a user
// raise it, so a stale cookie never blocks signing in again.
import type { Context } from "koa";
import type { AuthService } from "../../auth/auth-service.js";
import { AppError } from "../../errors.js";

export const SESSION_COOKIE = "session";

/** A route that needs a user, asked without a session: how to sign in is phrased for the asker (next-steps.ts). */
export const signInFirst = () => new AppError("UNAUTHENTICATED", "not signed in", { next: [{ action: "signIn" }] });

/** `cookie` is asked only when there is no bearer token: Koa builds its cookie jar per request. */
export function readSessionToken(authorization: string, cookie: () => string | undefined): string | undefined {
  const bearer = authorization ? /^Bearer\s+(\S+)$/i.exec(authorization) : null;
  if (bearer) return bearer[1];
  return cookie() || undefined;
}

/**
 * Puts the caller's user on ctx.state (and the token, for the order limiter), or the reason a token
 * was refused, for the routes that need a user to raise. Synchronous when the session is known
 * without a query (auth.known): a promise only when there is something to wait for.
 */
export function attachSession(ctx: Context, auth: AuthService, token: string): Promise<void> | undefined {
  const user = auth.known(token);
  if (!user) return authenticate(ctx, auth, token);
  ctx.state.user = user;
  ctx.state.sessionToken = token;
  return undefined;
}

async function authenticate(ctx: Context, auth: AuthService, token: string): Promise<void> {
  try {
    ctx.state.user = await auth.authenticate(token);
    ctx.state.sessionToken = token;
  } catch (err) {
    ctx.state.authError = err;
  }
}
