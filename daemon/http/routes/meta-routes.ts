// Unauthenticated routes about the daemon itself: readiness and the API description.
import type { Health } from "../../health.js";
import { defineRawRoute, type RouteSpec } from "../route.js";
import * as R from "./meta-responses.js";

export function metaRoutes(deps: { health: () => Promise<Health>; openApi: () => unknown }): RouteSpec[] {
  return [
    defineRawRoute({
      method: "get",
      path: "/healthz",
      tag: "meta",
      summary: "Readiness: database, exchange, chain, oracle; 503 (with the same data) when the database or the oracle is down",
      auth: false,
      raw: true,
      rawResponse: {
        mediaType: "application/json",
        description: "`{ok: true, data}` when ready; 503 `{ok: false, data, error: {code: SERVICE_UNAVAILABLE, message}}` when not. data: status, version, database, exchange, chain, oracle (lastSuccessAt, ageSeconds, ...)",
        schema: R.healthReady,
        errorSchema: R.healthNotReady,
      },
      errors: ["SERVICE_UNAVAILABLE"],
      handler: async ({ ctx }) => {
        const h = await deps.health();
        ctx.status = h.ready ? 200 : 503;
        ctx.set("Cache-Control", "no-store");
        ctx.body = h.ready
          ? { ok: true, data: h.data }
          : { ok: false, data: h.data, error: { code: "SERVICE_UNAVAILABLE", message: h.problems.join("; ") } };
      },
    }),
    defineRawRoute({
      method: "get",
      path: "/api/openapi.json",
      tag: "meta",
      summary: "This OpenAPI 3.1 document",
      auth: false,
      raw: true,
      rawResponse: { mediaType: "application/json", description: "The OpenAPI 3.1 document itself (no envelope)", schema: R.openApiDocument },
      handler: ({ ctx }) => {
        ctx.body = deps.openApi();
      },
    }),
  ];
}
