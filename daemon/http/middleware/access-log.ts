import type { Context } from "koa";
import type { Logger } from "pino";

/** One line per request, at info, with the final status and the time it took. */
export function logRequest(log: Logger, ctx: Context, started: bigint): void {
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  log.info(
    { requestId: ctx.state.requestId, method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(ms * 10) / 10 },
    "request",
  );
}
