// Routes are declared once, as data: method, path, schemas, handler. The Koa router and the OpenAPI
// document are both built from the same list, and a test checks the router serves nothing the
// document does not describe.
import type Router from "@koa/router";
import type { Context, Middleware } from "koa";
import { z } from "zod";
import type { AuthUser } from "../auth/auth-service.js";
import { AppError, type ErrorCode } from "../errors.js";
import { Prerendered, type Answer, type Checked } from "./answer.js";
import { JsonNumber, numberTakenForObject } from "./json-number.js";
import { jsonBody } from "./middleware/body.js";
import type { RateLimiter } from "./middleware/rate-limit.js";
import { signInFirst } from "./middleware/session.js";
import { sendCsv, wantsCsv, type CsvRows } from "./csv.js";

export type Method = "get" | "post" | "delete";

export interface HandlerInput<B, Q, P> {
  body: B;
  query: Q;
  params: P;
  /** The signed-in user; present on every route with `auth: true`. */
  user: AuthUser;
  /** The Koa context, for the few routes that must set cookies or stream. */
  ctx: Context;
}

interface RouteCommon<B, Q, P> {
  method: Method;
  path: string;
  summary: string;
  tag: string;
  auth: boolean;
  /** A route with `auth: false` that checks a credential itself: the session, or a single-use ticket in the query. */
  ticket?: boolean;
  body?: z.ZodType<B>;
  query?: z.ZodType<Q>;
  params?: z.ZodType<P>;
  errors?: ErrorCode[];
  /** Which rate limit applies: per client IP on sign-in, per session on order-changing routes. */
  limit?: "signIn" | "orders";
  /**
   * The same resource as CSV, when the client asks for it explicitly (csv.ts wantsCsv): rows streamed
   * instead of the envelope. `open` checks access before anything is sent.
   */
  csv?: CsvExport<Q, P>;
}

export interface CsvExport<Q, P> {
  /** What the CSV holds (the OpenAPI document's text/csv answer). */
  description: string;
  open(input: HandlerInput<undefined, Q, P>): Promise<CsvRows>;
}

/** A route answering the JSON envelope `{ok: true, data}`: `data` is what its handler returns. */
export interface EnvelopeRoute<B, Q, P, R extends z.ZodType, A> extends RouteCommon<B, Q, P> {
  raw?: false;
  /**
   * Schema of `data` (the OpenAPI document and the contract tests read it); the handler must answer
   * its input type, with no field it lacks. A route that answers nothing says so: `z.object({})`.
   */
  response: R;
  handler(input: HandlerInput<B, Q, P>): Promise<A & NoInfer<Checked<A, R>>> | (A & NoInfer<Checked<A, R>>);
}

/** What a `raw` route answers instead of the JSON envelope (for the OpenAPI document). */
export interface RawResponse {
  mediaType: "application/json" | "text/event-stream";
  description: string;
  /** The whole JSON body at 200 (no envelope is added). */
  schema?: z.ZodType;
  /** The whole body of the failures the handler writes itself (its `errors`), when not the error envelope. */
  errorSchema?: z.ZodType;
}

/** A route that writes ctx.body (and status, headers) itself: a stream, or a body without the envelope. */
export interface RawRoute<B, Q, P> extends RouteCommon<B, Q, P> {
  raw: true;
  rawResponse: RawResponse;
  response?: undefined;
  handler(input: HandlerInput<B, Q, P>): Promise<void> | void;
}

/**
 * A route as the router and the OpenAPI document take it, whatever its schemas: defineRoute (or
 * defineRawRoute) has checked its handler against them, so the list needs no more than this.
 */
export type RouteSpec = EnvelopeRoute<unknown, unknown, unknown, z.ZodType, unknown> | RawRoute<unknown, unknown, unknown>;

export type Limiters = Record<NonNullable<RouteCommon<unknown, unknown, unknown>["limit"]>, RateLimiter>;

/**
 * Declares a route once: its handler takes what the params, query and body schemas give, and must
 * answer the response schema's input type, or that pre-rendered, with no field the schema lacks.
 */
export function defineRoute<B = undefined, Q = undefined, P = undefined, R extends z.ZodType = z.ZodType, const A extends Answer<R> = Answer<R>>(
  spec: EnvelopeRoute<B, Q, P, R, A>,
): RouteSpec {
  return spec;
}

/** Declares a route that writes its answer itself (`raw: true`, documented by `rawResponse`). */
export function defineRawRoute<B = undefined, Q = undefined, P = undefined>(spec: RawRoute<B, Q, P>): RouteSpec {
  return spec;
}

/** A body's numbers are JsonNumbers (json-number.ts): a schema that wanted another type says "number". */
const numberIsNumber = (issue: z.core.$ZodRawIssue) =>
  issue.code === "invalid_type" && issue.input instanceof JsonNumber ? `Invalid input: expected ${issue.expected}, received number` : undefined;

/** Turns zod issues into INVALID_INPUT with one detail per field. */
export function parseInput<T>(schema: z.ZodType<T>, value: unknown, where: "body" | "query" | "params"): T {
  const result = schema.safeParse(value, { error: numberIsNumber });
  if (result.success) return result.data;
  const numbers = new Set<string>(); // one detail for a number taken for an object, not one per key
  const details = result.error.issues.flatMap((issue) => {
    const number = numberTakenForObject(value, issue.path);
    const field = [where, ...(number ?? issue.path).map(String)].join(".");
    if (!number) return [{ field, message: issue.message }];
    if (numbers.has(field)) return [];
    numbers.add(field);
    return [{ field, message: "Invalid input: expected object, received number" }];
  });
  const first = details[0];
  throw new AppError("INVALID_INPUT", first ? `${first.field}: ${first.message}` : `invalid ${where}`, { details });
}

/** Routes without a body take nothing, or `{}`: anything else is a mistake worth reporting. */
function rejectBody(body: unknown): void {
  if (body === undefined || body === null) return;
  if (typeof body === "object" && Object.keys(body as object).length === 0) return;
  throw new AppError("INVALID_INPUT", "this route takes no request body", { details: [{ field: "body", message: "must be empty or {}" }] });
}

/**
 * The errors the edge raises for a route before (or instead of) its handler, derived from the spec so
 * the OpenAPI document cannot drift from mountRoutes and the middleware: input schemas (and the empty
 * body check of body-less writes) give INVALID_INPUT, auth gives UNAUTHENTICATED, a limit
 * RATE_LIMITED; a write also passes the origin check (FORBIDDEN) and the body parser (PAYLOAD_TOO_LARGE,
 * UNSUPPORTED_MEDIA_TYPE).
 */
export function edgeErrors(route: RouteSpec): ErrorCode[] {
  const write = route.method !== "get";
  const out: ErrorCode[] = [];
  if (route.body || route.query || route.params || write) out.push("INVALID_INPUT");
  if (route.auth) out.push("UNAUTHENTICATED");
  if (write) out.push("FORBIDDEN", "PAYLOAD_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE");
  if (route.limit) out.push("RATE_LIMITED");
  return out;
}

/** Mounts the routes on `router`; a route with a method that takes a body reads it first (body.ts). */
export function mountRoutes(router: Router, routes: RouteSpec[], limiters: Limiters): void {
  const body = jsonBody();
  for (const route of routes) {
    const serve = serveRoute(route, limiters);
    if (route.method === "get") router.get(route.path, serve);
    else router[route.method](route.path, body, serve);
  }
}

function serveRoute(route: RouteSpec, limiters: Limiters): Middleware {
  return async (ctx) => {
    if (route.limit === "signIn") limiters.signIn.take(ctx.ip);
    const user = route.auth ? (ctx.state.user as AuthUser | undefined) : undefined;
    if (route.auth && !user) {
      throw ctx.state.authError ?? signInFirst();
    }
    if (route.limit === "orders") limiters.orders.take(String(ctx.state.sessionToken));
    if (!route.body && route.method !== "get") rejectBody(ctx.request.body);
    const input = {
      params: route.params ? parseInput(route.params, ctx.params, "params") : undefined,
      query: route.query ? parseInput(route.query, ctx.query, "query") : undefined,
      body: route.body ? parseInput(route.body, ctx.request.body ?? {}, "body") : undefined,
      user: user as AuthUser,
      ctx,
    };
    if (route.csv && wantsCsv(ctx, input.query)) return sendCsv(ctx, await route.csv.open({ ...input, body: undefined }));
    const data = await route.handler(input);
    if (route.raw) return;
    if (data instanceof Prerendered) {
      ctx.type = "json"; // before the body: a Buffer would otherwise be sent as application/octet-stream
      ctx.body = data.bytes;
    } else {
      ctx.body = { ok: true, data };
    }
  };
}
