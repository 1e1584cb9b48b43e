import type { Middleware } from "koa";
import type { Logger } from "pino";

export function accessLog(log: Logger): Middleware {
  return (ctx, next) => {
    // Asked per request, so a level changed at run time takes effect; below info this layer costs nothing.
    if (!log.isLevelEnabled("info")) return next();
    return logged(log, ctx, next);
  };
}

async function logged(log: Logger, ctx: Parameters<Middleware>[0], next: () => Promise<unknown>): Promise<void> {
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
}
