// Unauthenticated routes about the daemon itself: readiness and the API description.
import { z } from "zod";
import { defineRoute, type RouteSpec } from "../route.js";

export function metaRoutes(deps: { health: () => Promise<Record<string, unknown>>; openApi: () => unknown }): RouteSpec[] {
  return [
    defineRoute({
      method: "get",
      path: "/healthz",
      tag: "meta",
      summary: "Readiness: database, exchange, chain, oracle",
      auth: false,
      response: z.object({ status: z.string() }).loose(),
      handler: () => deps.health(),
    }),
    defineRoute({
      method: "get",
      path: "/api/openapi.json",
      tag: "meta",
      summary: "This OpenAPI 3.1 document",
      auth: false,
      raw: true,
      rawResponse: { mediaType: "application/json", description: "The OpenAPI 3.1 document itself (no envelope)" },
      handler: ({ ctx }) => {
        ctx.body = deps.openApi();
      },
    }),
  ];
}
