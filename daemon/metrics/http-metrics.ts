// Request metrics for the API: one observation per request, labelled by the route's pattern (never
// the raw path, whose ids and addresses would make a series per vault) and the final status. It runs
// outermost, so it times the error envelope too and sees the status the client got.
import type { Middleware } from "koa";
import type { Counter, Histogram } from "prom-client";

/** Paths no route matched (404s, probes, the dashboard's files) share one label. */
export const UNMATCHED = "(unmatched)";

export function httpMetrics(m: {
  requests: Counter<"method" | "route" | "status">;
  duration: Histogram<"method" | "route" | "status">;
}): Middleware {
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      // An error escaping here (none should: the envelope catches them) still counts, as Koa's 500.
      // routerPath: the pattern of the route @koa/router ran (its RouterContext).
      const labels = { method: ctx.method, route: (ctx as { routerPath?: string }).routerPath ?? UNMATCHED, status: String(ctx.status) };
      m.requests.inc(labels);
      m.duration.observe(labels, seconds);
    }
  };
}
