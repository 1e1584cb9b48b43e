// What every request passes through before a route, as one middleware rather than five: the request
// id, the access log, the error envelope, the origin check and the session. Each step is its own
// function in its own module; composing them here saves a layer (a promise and a dispatch) per step
// on every request, which is most of what an authenticated read costs beyond bare Koa (bench
// http-read, RESULTS.md). Order: the id first (errors and the log carry it), the log outermost (it
// sees the final status), the envelope around the rest.
import type { Middleware } from "koa";
import type { Logger } from "pino";
import type { AuthService } from "../../auth/auth-service.js";
import { logRequest } from "./access-log.js";
import { renderError, unanswered } from "./errors.js";
import { checkOrigin } from "./origin.js";
import { assignRequestId } from "./request-id.js";
import { SESSION_COOKIE, attachSession, readSessionToken } from "./session.js";

export function requestFrame(deps: { log: Logger; auth: AuthService; allowedOrigins: () => Set<string> }): Middleware {
  const { log, auth, allowedOrigins } = deps;
  return async (ctx, next) => {
    assignRequestId(ctx);
    // Asked per request, so a level changed at run time takes effect.
    const started = log.isLevelEnabled("info") ? process.hrtime.bigint() : undefined;
    try {
      checkOrigin(ctx, allowedOrigins);
      const token = readSessionToken(ctx.get("Authorization"), () => ctx.cookies.get(SESSION_COOKIE));
      const pending = token ? attachSession(ctx, auth, token) : undefined;
      if (pending) await pending;
      await next();
      const missing = unanswered(ctx);
      if (missing) throw missing;
    } catch (err) {
      renderError(log, ctx, err);
    } finally {
      if (started !== undefined) logRequest(log, ctx, started);
    }
  };
}
