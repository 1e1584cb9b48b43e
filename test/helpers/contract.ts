// The API contract, checked on every answer the tests receive: each JSON body a test daemon sends is
// validated against the schemas its operation documents (the same zod schemas /api/openapi.json is
// rendered from), matched by method and route pattern. A success must match its `data` schema with no
// undocumented field; a failure must be the error envelope with a code documented for that status.
// A mismatch throws from fetch, so the test that made the request fails, naming the operation and the
// path of the mismatch; it is also printed at exit and fails the file, should a test swallow the throw.
import { operationResponses } from "../../daemon/http/openapi.js";
import type { RouteSpec } from "../../daemon/http/route.js";
import { VAULT_EVENT_TYPES, type VaultEventType } from "../../daemon/events/event-types.js";
import { streamEvent } from "../../daemon/http/responses.js";
import { errorBody } from "../../daemon/http/schemas.js";
import { z } from "zod";

interface Operation {
  method: string;
  pattern: RegExp;
  name: string;
  route: RouteSpec;
}

export class ContractViolation extends Error {
  override name = "ContractViolation";
}

const watched = new Map<string, Operation[]>();
const violations: string[] = [];

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Koa's `/api/vaults/:address` as a regular expression over a request's pathname. */
export function routePattern(path: string): RegExp {
  const parts = path.split(/(:[A-Za-z0-9_]+)/).map((p) => (p.startsWith(":") ? "([^/]+)" : escape(p)));
  return new RegExp(`^${parts.join("")}/?$`);
}

/** Checks answers from the daemon at `url` against `routes` until the returned function is called. */
export function watchDaemon(url: string, routes: RouteSpec[]): () => void {
  installFetchCheck();
  reportAtExit();
  const origin = new URL(url).origin;
  watched.set(
    origin,
    routes.map((route) => ({
      method: route.method.toUpperCase(),
      pattern: routePattern(route.path),
      name: `${route.method.toUpperCase()} ${route.path.replace(/:([A-Za-z0-9_]+)/g, "{$1}")}`,
      route,
    })),
  );
  return () => watched.delete(origin);
}

const label = (path: PropertyKey[]) => (path.length ? path.map(String).join(".") : "(body)");

/** Fields of `input` that the parsed `output` dropped: they are in no schema. */
function undocumented(input: unknown, output: unknown, path: PropertyKey[] = []): string[] {
  if (Array.isArray(input) && Array.isArray(output)) return input.flatMap((v, i) => undocumented(v, output[i], [...path, i]));
  if (!input || !output || typeof input !== "object" || typeof output !== "object") return [];
  const out: string[] = [];
  for (const [key, value] of Object.entries(input)) {
    if (!(key in output)) out.push(`${label([...path, key])}: not in the schema`);
    else out.push(...undocumented(value, (output as Record<string, unknown>)[key], [...path, key]));
  }
  return out;
}

/** The mismatches of one answer, as `path: problem` lines; empty when it keeps the contract. */
export function mismatches(schema: z.ZodType, body: unknown): string[] {
  const parsed = schema.safeParse(body);
  if (!parsed.success) return parsed.error.issues.map((i) => `${label(i.path)}: ${i.message}`);
  return undocumented(body, parsed.data);
}

/**
 * What is wrong with an answer of `method pathname` from a watched daemon, or undefined when nothing
 * is. Paths no operation serves (404, 405) need only be the error envelope.
 */
export function checkAnswer(
  ops: Operation[], method: string, pathname: string, answer: { status: number; type: string; body: unknown },
): string | undefined {
  const { status, type, body } = answer;
  const json = type.startsWith("application/json");
  const op = ops.find((o) => o.method === method && o.pattern.test(pathname));
  const where = op ? `${op.name} (${method} ${pathname})` : `${method} ${pathname}`;
  if (!op) {
    const problems = status < 400 || !json ? [] : mismatches(errorBody, body);
    return problems.length ? `${where} answered ${status} outside the error envelope:\n  ${problems.join("\n  ")}` : undefined;
  }
  const documented = operationResponses(op.route);
  const doc = documented.find((r) => r.status === status);
  if (!doc) return `${where} answered ${status}, which it does not document (documented: ${documented.map((r) => r.status).join(", ")})`;
  if (doc.csv && type.startsWith("text/csv")) return undefined; // streamed rows: the export tests read them
  if (doc.mediaType === "application/json" && !json) return `${where} answered ${status} with ${type || "no content type"}, not JSON`;
  if (!doc.schema) return undefined;
  const problems = mismatches(doc.schema, body);
  if (problems.length === 0) return undefined;
  const code = (body as { error?: { code?: unknown } } | null)?.error?.code;
  const codeNote = doc.codes && code !== undefined && !doc.codes.includes(code as never)
    ? ` (code ${String(code)} is not documented for ${status}: ${doc.codes.join(", ")})`
    : "";
  return `${where} answered ${status} with a body that does not match its documented schema${codeNote}:\n  ${problems.join("\n  ")}`;
}

const isEventType = (type: string): type is VaultEventType => (VAULT_EVENT_TYPES as readonly string[]).includes(type);

/**
 * A message of GET /api/events: `data` is `{id, vault, type, time, ...fields}` with the fields of the
 * event type's documented data (the same as in GET /api/vaults/{address}/events).
 */
export function checkStreamEvent(event: string, data: unknown): string | undefined {
  if (!isEventType(event)) return `GET /api/events sent event type ${event}, which no schema documents (${VAULT_EVENT_TYPES.join(", ")})`;
  const problems = mismatches(streamEvent(event), data);
  return problems.length ? `GET /api/events sent a ${event} that does not match its documented data:\n  ${problems.join("\n  ")}` : undefined;
}

/** Records a violation found outside fetch (e.g. on an event stream) and throws it. */
export function violated(problem: string): never {
  reportAtExit();
  violations.push(problem);
  throw new ContractViolation(`API contract: ${problem}`);
}

let installed = false;

function installFetchCheck(): void {
  if (installed) return;
  installed = true;
  const original = globalThis.fetch;
  globalThis.fetch = async function checkedFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
    const res = await original(input, init);
    const url = new URL(input instanceof Request ? input.url : String(input));
    const ops = watched.get(url.origin);
    const method = (init?.method ?? (input instanceof Request ? input.method : "GET")).toUpperCase();
    const type = res.headers.get("content-type") ?? "";
    if (!ops || method === "HEAD" || method === "OPTIONS" || type.startsWith("text/event-stream")) return res;
    const text = await res.clone().text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
    const problem = checkAnswer(ops, method, url.pathname, { status: res.status, type, body });
    if (problem) violated(problem);
    return res;
  } as typeof fetch;
}

let reporting = false;

function reportAtExit(): void {
  if (reporting) return;
  reporting = true;
  process.on("exit", () => {
    if (violations.length === 0) return;
    process.stderr.write(`\nAPI contract violations (${violations.length}):\n${violations.map((v) => `- ${v}`).join("\n")}\n`);
    process.exitCode = 1;
  });
}
