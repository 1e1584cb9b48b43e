// A state-changing request that carries an Origin header must come from an allowed origin (the
// configured CORS origins or the daemon's own); requests without Origin (CLI, scripts) pass. This is
// the CSRF guard for cookie sessions.
import type { Middleware } from "koa";
import { AppError } from "../../errors.js";

const SAFE = new Set(["GET", "HEAD", "OPTIONS"]);

export function originCheck(allowed: () => Set<string>): Middleware {
  return async (ctx, next) => {
    const origin = ctx.get("Origin");
    if (!SAFE.has(ctx.method) && origin && !allowed().has(origin)) {
      throw new AppError("FORBIDDEN", `requests from origin ${origin} are not allowed (the daemon allows a site with --cors-origin ${origin})`);
    }
    await next();
  };
}
