import type { Middleware } from "koa";
import type { Logger } from "pino";

/** One line per request, at info, with the final status and the time it took. */
export function accessLog(log: Logger): Middleware {
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      log.info(
        { requestId: ctx.state.requestId, method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(ms * 10) / 10 },
        "request",
      );
    }
  };
}
