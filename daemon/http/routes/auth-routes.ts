// SPEC 4.1-4.3: challenge, login, logout.
import type { Context } from "koa";
import { z } from "zod";
import type { AuthService, AuthUser } from "../../auth/auth-service.js";
import type { EventHub } from "../../events/event-hub.js";
import { seconds } from "../render.js";
import * as R from "./auth-responses.js";
import { defineRoute } from "../route.js";
import { SESSION_COOKIE } from "../middleware/session.js";
import { address, signatureHex, signInNonce } from "../schemas.js";

function setSessionCookie(ctx: Context, token: string, expiresAt: number | null) {
  // The cookie is always Secure. Koa refuses a Secure cookie on a connection it does not consider
  // secure; browsers treat loopback http as a secure context, and off loopback the daemon only runs
  // behind TLS or a trusted TLS proxy, so telling Koa the connection is secure is truthful here.
  ctx.cookies.secure = true;
  ctx.cookies.set(SESSION_COOKIE, token, {
    httpOnly: true,
    secure: true,
    sameSite: "strict",
    path: "/",
    overwrite: true,
    ...(expiresAt === null ? { expires: new Date(0) } : { expires: new Date(expiresAt) }),
  });
}

export function authRoutes(auth: AuthService, streams: Pick<EventHub, "endSession">) {
  return [
    defineRoute({
      method: "post",
      path: "/api/auth/challenge",
      tag: "auth",
      summary: "Get an EIP-4361 sign-in message and its single-use nonce for a wallet address",
      auth: false,
      limit: "signIn",
      body: z.object({ address }).strict(),
      response: R.challenge,
      errors: ["INVALID_INPUT", "RATE_LIMITED"],
      handler: async ({ body, ctx }) => {
        // An Origin here passed the origin check (it is allowed): the message names that page.
        const c = await auth.challenge(body.address, ctx.get("Origin") || undefined);
        return { message: c.message, nonce: c.nonce };
      },
    }),
    defineRoute({
      method: "post",
      path: "/api/auth/login",
      tag: "auth",
      summary: "Exchange a signed challenge for a session (cookie `session` and sessionToken)",
      auth: false,
      limit: "signIn",
      // Only the shape here: a signature that verifies to nobody is a failed sign-in (401), as DESIGN says.
      body: z.object({ address, signature: signatureHex, nonce: signInNonce }).strict(),
      response: R.login,
      errors: ["INVALID_INPUT", "UNAUTHENTICATED", "RATE_LIMITED"],
      handler: async ({ body, ctx }) => {
        const result = await auth.login(body);
        setSessionCookie(ctx, result.sessionToken, result.expiresAt);
        return { user: { address: result.address, sessionToken: result.sessionToken } };
      },
    }),
    defineRoute({
      method: "get",
      path: "/api/auth/session",
      tag: "auth",
      summary: "Who this request is signed in as (cookie or Bearer): {user: null} when nobody is, rather than a 401, so a page can ask before it signs in",
      // The session middleware already read the token; a missing, expired or unknown one is simply nobody.
      auth: false,
      response: R.currentSession,
      handler: ({ ctx }) => {
        const user = ctx.state.user as AuthUser | undefined;
        return { user: user ? { address: user.address, expiresAt: seconds(user.sessionExpiresAt)! } : null };
      },
    }),
    defineRoute({
      method: "post",
      path: "/api/auth/logout",
      tag: "auth",
      summary: "End the current session",
      auth: true,
      response: R.loggedOut,
      errors: ["UNAUTHENTICATED"],
      handler: async ({ ctx, user }) => {
        await auth.logout(ctx.state.sessionToken as string);
        // Streams opened with this session end with it.
        streams.endSession(user.sessionKey);
        setSessionCookie(ctx, "", null);
        return {};
      },
    }),
  ];
}
