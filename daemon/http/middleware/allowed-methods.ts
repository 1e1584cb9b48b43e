// Runs after the routes. A path the router knows, asked with a method it does not serve, answers 405
// with `Allow`; OPTIONS on it answers 204 with `Allow` and no body. A CORS preflight never gets here:
// @koa/cors answers it first.
import type { Middleware } from "koa";
import { AppError } from "../../errors.js";

const ORDER = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

/** The methods the matched routes serve (HEAD comes with GET), plus OPTIONS, which this answers. */
function allowOf(matched: ReadonlyArray<{ methods: string[] }>): string[] {
  const served = new Set(matched.flatMap((layer) => layer.methods));
  if (served.size === 0) return [];
  served.add("OPTIONS");
  return [...ORDER.filter((m) => served.has(m)), ...[...served].filter((m) => !ORDER.includes(m)).sort()];
}

export function allowedMethods(): Middleware {
  return async (ctx, next) => {
    await next();
    if (ctx.status !== 404 || ctx.body !== undefined) return;
    const allow = allowOf((ctx as { matched?: Array<{ methods: string[] }> }).matched ?? []);
    if (allow.length === 0) return; // no such path: the error envelope answers 404
    ctx.set("Allow", allow.join(", "));
    if (ctx.method === "OPTIONS") {
      ctx.status = 204;
      return;
    }
    throw new AppError("METHOD_NOT_ALLOWED", `${ctx.path} does not take ${ctx.method}; it takes ${allow.join(", ")}`);
  };
}
