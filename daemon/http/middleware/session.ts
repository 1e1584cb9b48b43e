// Reads the session from the `session` cookie or `Authorization: Bearer <token>` (for clients that
// cannot send a SameSite=Strict cookie). A bad token is not an error here: routes that need a user
// raise it, so a stale cookie never blocks signing in again.
import type { Middleware } from "koa";
import type { AuthService } from "../../auth/auth-service.js";
import { AppError } from "../../errors.js";

export const SESSION_COOKIE = "session";

/** A route that needs a user, asked without a session: how to sign in is phrased for the asker (next-steps.ts). */
export const signInFirst = () => new AppError("UNAUTHENTICATED", "not signed in", { next: [{ action: "signIn" }] });

const BEARER = /^Bearer\s+(\S+)$/i;

/**
 * Puts the caller's user on ctx.state (and the token, for the order limiter), or the reason a token
 * was refused, for the routes that need a user to raise.
 */
export function session(auth: AuthService): Middleware {
  return async (ctx, next) => {
    const token = BEARER.exec(ctx.get("Authorization"))?.[1] ?? (ctx.cookies.get(SESSION_COOKIE) || undefined);
    if (token) {
      try {
        ctx.state.user = await auth.authenticate(token);
        ctx.state.sessionToken = token;
      } catch (err) {
        ctx.state.authError = err;
      }
    }
    await next();
  };
}
