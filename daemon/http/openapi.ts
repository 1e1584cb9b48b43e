// The OpenAPI 3.1 document, generated from the same route list the router is built from.
import { z } from "zod";
import { ERROR_STATUS } from "../errors.js";
import { edgeErrors, type RouteSpec } from "./route.js";
import { envelope, errorBody } from "./schemas.js";

type Json = Record<string, unknown>;

const toSchema = (schema: z.ZodType, io: "input" | "output"): Json => {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as Json;
  return rest;
};

/** Koa's `/api/orders/:orderId` becomes OpenAPI's `/api/orders/{orderId}`. */
export const openApiPath = (koaPath: string) => koaPath.replace(/:([A-Za-z0-9_]+)/g, "{$1}");

function parameters(route: RouteSpec): Json[] {
  const out: Json[] = [];
  for (const [where, schema] of [["path", route.params], ["query", route.query]] as const) {
    if (!schema) continue;
    const json = toSchema(schema, "input") as { properties?: Record<string, Json>; required?: string[] };
    for (const [name, prop] of Object.entries(json.properties ?? {})) {
      out.push({ name, in: where, required: where === "path" || (json.required ?? []).includes(name), schema: prop });
    }
  }
  return out;
}

function operation(route: RouteSpec): Json {
  const raw = route.rawResponse;
  const responses: Json = {
    "200": raw
      ? {
          description: raw.description,
          content: { [raw.mediaType]: { schema: raw.mediaType === "text/event-stream" ? { type: "string" } : { type: "object" } } },
        }
      : {
          description: "Success",
          content: { "application/json": { schema: toSchema(envelope(route.response ?? z.unknown()), "output") } },
        },
  };
  const errorSchema = toSchema(errorBody, "output");
  const codes = new Set([...edgeErrors(route), ...(route.errors ?? []), "INTERNAL" as const]);
  const byStatus = new Map<number, string[]>();
  for (const code of codes) byStatus.set(ERROR_STATUS[code], [...(byStatus.get(ERROR_STATUS[code]) ?? []), code]);
  for (const [status, names] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    responses[String(status)] = {
      description: names.join(", "),
      content: { "application/json": { schema: errorSchema } },
    };
  }
  return {
    operationId: `${route.method}${route.path.replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string = "") => c.toUpperCase())}`,
    summary: route.summary,
    tags: [route.tag],
    ...(route.auth
      ? { security: [{ sessionCookie: [] }, { bearer: [] }] }
      : route.ticket
        ? { security: [{ sessionCookie: [] }, { bearer: [] }, {}] } // {}: or none, with ?ticket= instead
        : { security: [] }),
    parameters: parameters(route),
    ...(route.body
      ? { requestBody: { required: true, content: { "application/json": { schema: toSchema(route.body, "input") } } } }
      : {}),
    responses,
  };
}

export function buildOpenApi(routes: RouteSpec[], info: { version: string; serverUrl: string }): Json {
  const paths: Record<string, Json> = {};
  for (const route of routes) {
    const path = openApiPath(route.path);
    paths[path] = { ...(paths[path] ?? {}), [route.method]: operation(route) };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "tradevault API",
      version: info.version,
      description:
        "Self-hosted, non-custodial trading and vault service for Hyperliquid. Success bodies are " +
        "{ ok: true, data }, failures { ok: false, error: { code, message, details? } }.",
    },
    servers: [{ url: info.serverUrl }],
    components: {
      securitySchemes: {
        sessionCookie: { type: "apiKey", in: "cookie", name: "session" },
        bearer: { type: "http", scheme: "bearer", description: "the sessionToken from POST /api/auth/login" },
      },
    },
    paths,
  };
}
