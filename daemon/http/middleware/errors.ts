// Renders every failure as { ok: false, error: { code, message, details? } }, a refusal's next steps
// phrased for the client the request names (next-steps.ts). Boundaries translate
// foreign errors into AppError; the database's temporary failures (an outage, a lock or statement
// timeout) are 503 with Retry-After (errors.ts databaseError); anything else is a bug: a masked 500,
// logged once with its stack.
import type { Context, Middleware } from "koa";
import type { Logger } from "pino";
import { AppError, databaseError, isAppError } from "../../errors.js";
import { CLIENT_HEADER, audienceOf, withNextDetails, withNextSteps } from "../next-steps.js";

/** Every failure below, in the envelope; a request nothing below answered is a 404 in it, not Koa's text "Not Found". */
export function errorEnvelope(log: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) throw new AppError("NOT_FOUND", `no route for ${ctx.method} ${ctx.path}`);
    } catch (err) {
      renderError(log, ctx, err);
    }
  };
}

export function renderError(log: Logger, ctx: Context, err: unknown): void {
  let appErr = isAppError(err) ? err : databaseError(err);
  if (appErr && !isAppError(err)) {
    // An outage answers 503 on every request while it lasts: a line each, without the stack.
    log.warn({ err: (err as Error)?.message, requestId: ctx.state.requestId, method: ctx.method, path: ctx.path }, "database unavailable");
  } else if (!appErr) {
    log.error({ err, requestId: ctx.state.requestId, method: ctx.method, path: ctx.path }, "unhandled error");
    appErr = new AppError("INTERNAL", "internal error; see the daemon log with this request id");
  } else if (ctx.req.readableAborted) {
    // The client dropped the connection mid-request: its doing, worth a trace, not an alarm.
    log.debug({ err, requestId: ctx.state.requestId, method: ctx.method, path: ctx.path }, "request aborted by the client");
  }
  ctx.status = appErr.status;
  if (appErr.retryAfter !== undefined) ctx.set("Retry-After", String(Math.max(1, Math.ceil(appErr.retryAfter))));
  // A refusal's next steps in the asker's words (a route, a command, a button), and as data.
  const details = withNextDetails(appErr.details, appErr.next);
  ctx.body = {
    ok: false,
    error: {
      code: appErr.code,
      message: withNextSteps(appErr.message, appErr.next, audienceOf(ctx.get(CLIENT_HEADER))),
      ...(details === undefined ? {} : { details }),
    },
  };
}
