// The Koa application. Middleware order is written once, here: request id, access log, error
// envelope, origin check, session, CORS, the routes (each write route reads its own body, route.ts)
// with the router's 405/OPTIONS answers, then, for requests no route took, the API docs page (not an
// operation) and the dashboard's files.
import cors from "@koa/cors";
import Router from "@koa/router";
import Koa from "koa";
import { METHODS } from "node:http";
import type { Logger } from "pino";
import type { AuthService } from "../auth/auth-service.js";
import { allowedMethods } from "./middleware/allowed-methods.js";
import { accessLog } from "./middleware/access-log.js";
import { errorEnvelope } from "./middleware/errors.js";
import { originCheck } from "./middleware/origin.js";
import { requestId } from "./middleware/request-id.js";
import { session } from "./middleware/session.js";
import { CLIENT_HEADER } from "./next-steps.js";
import { staticFiles } from "./middleware/static.js";
import { mountRoutes, type Limiters, type RouteSpec } from "./route.js";
import { apiDocs } from "./routes/docs-route.js";

export interface AppDeps {
  log: Logger;
  auth: AuthService;
  routes: RouteSpec[];
  limiters: Limiters;
  /** Origins allowed to make credentialed browser requests (configured CORS origins + our own). */
  allowedOrigins: () => Set<string>;
  corsOrigins: string[];
  trustProxy: boolean;
  /** Outermost: request metrics (--metrics-port), timing everything below. */
  metrics?: Koa.Middleware;
}

export function buildApp(deps: AppDeps): { app: Koa; router: Router } {
  const app = new Koa({ proxy: deps.trustProxy });
  app.silent = true; // errors are logged by the envelope middleware, once, with the request id
  // Every method Node parses counts as known, so an odd one is a 405 on a route's path and a 404
  // elsewhere (allowedMethods would answer a method outside the list 501 on any path).
  const router = new Router({ methods: METHODS });
  mountRoutes(router, deps.routes, deps.limiters);

  if (deps.metrics) app.use(deps.metrics);
  app.use(requestId()); // first: the log and the envelope carry it
  app.use(accessLog(deps.log)); // outside the envelope, so it logs the status the client got
  app.use(errorEnvelope(deps.log));
  app.use(originCheck(deps.allowedOrigins));
  app.use(session(deps.auth));
  if (deps.corsOrigins.length > 0) {
    const allowed = new Set(deps.corsOrigins);
    app.use(
      cors({
        origin: (ctx) => (allowed.has(ctx.get("Origin")) ? ctx.get("Origin") : ""),
        credentials: true,
        exposeHeaders: ["X-Request-Id", "Retry-After"],
        allowHeaders: ["Content-Type", "Authorization", "Idempotency-Key", "Last-Event-ID", "X-Request-Id", CLIENT_HEADER],
      }),
    );
  }
  app.use(router.routes()); // calls next only when no route matches the path and method
  app.use(allowedMethods(router)); // once the pages below have not answered either
  app.use(apiDocs());
  app.use(staticFiles());
  return { app, router };
}
