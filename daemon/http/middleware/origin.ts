// A state-changing request that carries an Origin header must come from an allowed origin (the
// configured CORS origins or the daemon's own); requests without Origin (CLI, scripts) pass. This is
// the CSRF guard for cookie sessions.
import type { Context } from "koa";
import { AppError } from "../../errors.js";

const SAFE = new Set(["GET", "HEAD", "OPTIONS"]);

export function checkOrigin(ctx: Context, allowed: () => Set<string>): void {
  if (SAFE.has(ctx.method)) return;
  const origin = ctx.get("Origin");
  if (origin && !allowed().has(origin)) {
    throw new AppError("FORBIDDEN", `requests from origin ${origin} are not allowed (the daemon allows a site with --cors-origin ${origin})`);
  }
}
