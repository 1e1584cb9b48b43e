import { randomUUID } from "node:crypto";
import type { Middleware } from "koa";

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Every response carries X-Request-Id: the caller's (if sane) or a fresh UUID. */
export function requestId(): Middleware {
  return async (ctx, next) => {
    const given = ctx.get("X-Request-Id");
    const id = SAFE_ID.test(given) ? given : randomUUID();
    ctx.state.requestId = id;
    ctx.set("X-Request-Id", id);
    await next();
  };
}
