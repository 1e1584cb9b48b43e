// What every request passes through before a route, as one middleware rather than five: the request
// id, the access log, the error envelope, the origin check and the session. Each step is its own
// function in its own module; composing them here saves a layer (a promise and a dispatch) per step
// on every request, which is most of what an authenticated read costs beyond bare Koa (bench
// http-read, RESULTS.md). Order: the id first (errors and the log carry it), the log outermost (it
// sees the final status), the envelope around the rest.
//
// A request that waits for nothing (a kept session, a route answering from memory) is framed without
// a promise: `inner` (the route table, when no layer sits between it and the frame) is called
// directly, and only an answer that is a promise is chained on.
import type { Context, Middleware, Next } from "koa";
import type { Logger } from "pino";
import type { AuthService } from "../../auth/auth-service.js";
import { logRequest } from "./access-log.js";
import { renderError, unanswered } from "./errors.js";
import { checkOrigin } from "./origin.js";
import { assignRequestId } from "./request-id.js";
import { SESSION_COOKIE, attachSession, readSessionToken } from "./session.js";

/** A middleware that may answer without a promise (route.ts's route table). */
export type MaybeSyncMiddleware = (ctx: Context, next: Next) => Promise<unknown> | void;

export function requestFrame(deps: {
  log: Logger;
  auth: AuthService;
  allowedOrigins: () => Set<string>;
  inner?: MaybeSyncMiddleware;
}): Middleware {
  const { log, auth, allowedOrigins, inner } = deps;
  const pass = (ctx: Context, next: Next) => (inner ? inner(ctx, next) : next());
  return (ctx, next) => {
    assignRequestId(ctx);
    // Asked per request, so a level changed at run time takes effect.
    const started = log.isLevelEnabled("info") ? process.hrtime.bigint() : undefined;
    const settle = () => {
      const missing = unanswered(ctx);
      if (missing) throw missing;
    };
    const fail = (err: unknown) => renderError(log, ctx, err);
    const end = () => {
      if (started !== undefined) logRequest(log, ctx, started);
    };
    try {
      checkOrigin(ctx, allowedOrigins);
      const token = readSessionToken(ctx.get("Authorization"), () => ctx.cookies.get(SESSION_COOKIE));
      const pending = token ? attachSession(ctx, auth, token) : undefined;
      const answered = pending ? pending.then(() => pass(ctx, next)) : pass(ctx, next);
      if (answered) return answered.then(settle).catch(fail).finally(end);
      settle();
    } catch (err) {
      fail(err);
    }
    end();
    return undefined;
  };
}
