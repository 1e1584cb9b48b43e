// Renders every failure as { ok: false, error: { code, message, details? } }. Foreign errors are
// translated here at the edge; anything unexpected becomes a masked 500 and is logged with its stack.
import type { Middleware } from "koa";
import type { Logger } from "pino";
import { AppError, isAppError } from "../../errors.js";

interface HttpishError {
  status?: number;
  statusCode?: number;
  type?: string;
  expose?: boolean;
}

function translate(err: unknown): AppError | undefined {
  if (isAppError(err)) return err;
  const e = err as HttpishError;
  const status = e?.status ?? e?.statusCode;
  // Body-parser errors (raw-body / co-body) carry a `type` and an HTTP status.
  if (e?.type === "entity.too.large" || status === 413) {
    return new AppError("PAYLOAD_TOO_LARGE", "the request body is larger than the limit");
  }
  if (e?.type === "entity.parse.failed" || (status === 400 && e?.expose)) {
    return new AppError("INVALID_INPUT", "the request body is not valid JSON");
  }
  if (status === 415) return new AppError("UNSUPPORTED_MEDIA_TYPE", "send the body as application/json");
  return undefined;
}

export function errorEnvelope(log: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        throw new AppError("NOT_FOUND", `no route for ${ctx.method} ${ctx.path}`);
      }
    } catch (err) {
      let appErr = translate(err);
      if (!appErr) {
        log.error({ err, requestId: ctx.state.requestId, method: ctx.method, path: ctx.path }, "unhandled error");
        appErr = new AppError("INTERNAL", "internal error; see the daemon log with this request id");
      }
      ctx.status = appErr.status;
      if (appErr.retryAfter !== undefined) ctx.set("Retry-After", String(Math.max(1, Math.ceil(appErr.retryAfter))));
      ctx.body = {
        ok: false,
        error: {
          code: appErr.code,
          message: appErr.message,
          ...(appErr.details === undefined ? {} : { details: appErr.details }),
        },
      };
    }
  };
}
