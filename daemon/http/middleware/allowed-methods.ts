// @koa/router's allowedMethods, with the two answers the API documents that it does not give
// (docs/http-api.md): a 405 in the error envelope with Allow (with `throw: true` the router sets no
// Allow), and OPTIONS answered 204 with OPTIONS in Allow (the router answers 200 and leaves it out).
// A CORS preflight never gets here: @koa/cors answers it first.
import type { Router, RouterMiddleware } from "@koa/router";
import { AppError } from "../../errors.js";

export function allowedMethods(router: Router): RouterMiddleware {
  const stock = router.allowedMethods();
  return async (ctx, next) => {
    await stock(ctx, next);
    const allow = ctx.response.get("Allow");
    if (!allow) return; // answered, or no route on this path: the envelope's 404
    ctx.set("Allow", `${allow}, OPTIONS`);
    if (ctx.method === "OPTIONS") ctx.status = 204; // Koa sends a 204 without body or Content-Type
    else throw new AppError("METHOD_NOT_ALLOWED", `${ctx.path} does not take ${ctx.method}; it takes ${allow}, OPTIONS`);
  };
}
