// The OpenAPI 3.1 document, generated from the same route list the router is built from.
import { z } from "zod";
import { ERROR_STATUS, type ErrorCode } from "../errors.js";
import { AUDIENCES, CLIENT_HEADER } from "./next-steps.js";
import { edgeErrors, type RouteSpec } from "./route.js";
import { envelope, errorEnvelope } from "./schemas.js";

type Json = Record<string, unknown>;

const toSchema = (schema: z.ZodType, io: "input" | "output"): Json => {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as Json;
  return rest;
};

/** Koa's `/api/orders/:orderId` becomes OpenAPI's `/api/orders/{orderId}`. */
export const openApiPath = (koaPath: string) => koaPath.replace(/:([A-Za-z0-9_]+)/g, "{$1}");

/** Every operation takes it: a refusal's message names its next steps in the words of the client. */
const clientHeader: Json = {
  name: CLIENT_HEADER, in: "header", required: false,
  description: "who reads the error messages: `cli` names tradevault commands, `dashboard` the dashboard's buttons; " +
    "absent or anything else, the API's routes (`http`). The steps are in `error.details.next` too, in no client's words.",
  schema: { type: "string", examples: [...AUDIENCES] },
};

function parameters(route: RouteSpec): Json[] {
  const out: Json[] = [];
  for (const [where, schema] of [["path", route.params], ["query", route.query]] as const) {
    if (!schema) continue;
    const json = toSchema(schema, "input") as { properties?: Record<string, Json>; required?: string[] };
    for (const [name, prop] of Object.entries(json.properties ?? {})) {
      out.push({ name, in: where, required: where === "path" || (json.required ?? []).includes(name), schema: prop });
    }
  }
  out.push(clientHeader);
  return out;
}

/** One documented answer of an operation: its status, media type, body schema and (failures) codes. */
export interface ResponseDoc {
  status: number;
  description: string;
  mediaType: "application/json" | "text/event-stream";
  /** The whole body; absent for an event stream. */
  schema?: z.ZodType;
  /** A success that may also answer text/csv (when asked explicitly): what the CSV holds. */
  csv?: string;
  codes?: ErrorCode[];
}

/** The error codes an operation may answer: its edge's, its own, SERVICE_UNAVAILABLE (the database is out) and INTERNAL. */
export const operationCodes = (route: RouteSpec): ErrorCode[] =>
  [...new Set([...edgeErrors(route), ...(route.errors ?? []), "SERVICE_UNAVAILABLE" as const, "INTERNAL" as const])];

/**
 * Every answer an operation documents, from its spec: the OpenAPI document is rendered from this, and
 * the contract tests validate live answers against the same schemas.
 */
export function operationResponses(route: RouteSpec): ResponseDoc[] {
  const raw = route.raw ? route.rawResponse : undefined;
  const success: ResponseDoc = route.raw
    ? { status: 200, description: route.rawResponse.description, mediaType: route.rawResponse.mediaType, schema: route.rawResponse.schema }
    : { status: 200, description: "Success", mediaType: "application/json", schema: envelope(route.response), ...(route.csv ? { csv: route.csv.description } : {}) };
  const own = new Set(route.errors ?? []);
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of operationCodes(route)) byStatus.set(ERROR_STATUS[code], [...(byStatus.get(ERROR_STATUS[code]) ?? []), code]);
  const failures = [...byStatus].sort((a, b) => a[0] - b[0]).map(([status, codes]): ResponseDoc => ({
    status, description: codes.join(", "), mediaType: "application/json", codes,
    // A raw route writes its own failures (e.g. /healthz's 503 with data); the edge's use the envelope.
    schema: raw?.errorSchema && codes.every((c) => own.has(c)) ? raw.errorSchema : errorEnvelope(codes as [ErrorCode, ...ErrorCode[]]),
  }));
  return [success, ...failures];
}

function operation(route: RouteSpec): Json {
  const responses: Json = {};
  for (const r of operationResponses(route)) {
    const schema = r.schema ? toSchema(r.schema, "output") : r.mediaType === "text/event-stream" ? { type: "string" } : { type: "object" };
    const csv = r.csv ? { "text/csv": { schema: { type: "string", description: r.csv } } } : {};
    responses[String(r.status)] = { description: r.description, content: { [r.mediaType]: { schema }, ...csv } };
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
