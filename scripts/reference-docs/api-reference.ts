// The generated section of docs/api-reference.md: every operation of the route table, from the same
// RouteSpecs /api/openapi.json is built from (daemon/http/openapi.ts), read without starting a daemon.
import { readdirSync } from "node:fs";
import { extname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { ERROR_STATUS, type ErrorCode } from "../../daemon/errors.js";
import { openApiPath, operationResponses } from "../../daemon/http/openapi.js";
import { edgeErrors, type RouteSpec } from "../../daemon/http/route.js";
import { code, table, text } from "./markdown.js";

/** Where the route groups live: one `<group>-routes.ts` (or `-route.ts`) each, exporting its factory. */
const ROUTES_DIR = fileURLToPath(new URL("../../daemon/http/routes/", import.meta.url));
/** Run from TypeScript (tsx) or from the test run's JavaScript copy: the groups are read in the same form. */
const EXT = extname(fileURLToPath(import.meta.url));

/**
 * A route factory takes the services its handlers call; a handler runs only on a request, so
 * declaring the routes needs none. Each dependency is this stand-in: any property of it is itself,
 * and calling it throws, so a factory that used a service while declaring would say so here.
 */
const standIn: unknown = new Proxy(function standIn() {}, {
  get: (_target, key) => (key === "then" ? undefined : key === Symbol.toPrimitive ? () => "stand-in" : standIn),
  apply: () => {
    throw new Error("a route factory called a service while declaring its routes: the docs cannot be built without a daemon");
  },
});

export interface RouteTable {
  /** The factories read, by name (`vaultRoutes`): every one the daemon mounts must be among them. */
  factories: string[];
  routes: RouteSpec[];
}

/** Every route group's factory, called with stand-ins: the routes as the daemon declares them. */
export async function declaredRoutes(): Promise<RouteTable> {
  const factories: string[] = [];
  const routes: RouteSpec[] = [];
  const files = readdirSync(ROUTES_DIR).filter((f) => f.endsWith(`-routes${EXT}`) || f.endsWith(`-route${EXT}`)).sort();
  for (const file of files) {
    const module = (await import(pathToFileURL(join(ROUTES_DIR, file)).href)) as Record<string, unknown>;
    for (const [name, factory] of Object.entries(module)) {
      if (typeof factory !== "function" || !/Routes?$/.test(name)) continue;
      factories.push(name);
      routes.push(...(factory as (...deps: unknown[]) => RouteSpec[])(standIn, standIn));
    }
  }
  return { factories: factories.sort(), routes };
}

/** Sections in the order a frontend meets them; a tag not listed follows, by name. */
const TAG_ORDER = ["meta", "auth", "account", "agent", "trading", "proposals", "vaults", "events", "webhooks", "sim"];
const METHOD_ORDER = ["get", "post", "delete"];

const tagRank = (tag: string) => (TAG_ORDER.includes(tag) ? TAG_ORDER.indexOf(tag) : TAG_ORDER.length);
const byTag = (a: string, b: string) => tagRank(a) - tagRank(b) || a.localeCompare(b);
const byPath = (a: RouteSpec, b: RouteSpec) =>
  a.path.localeCompare(b.path) || METHOD_ORDER.indexOf(a.method) - METHOD_ORDER.indexOf(b.method);

function access(route: RouteSpec): string {
  const who = route.auth ? "session" : route.ticket ? "session or `?ticket=`" : "none";
  if (route.limit === "signIn") return `${who}; rate-limited per IP`;
  if (route.limit === "orders") return `${who}; rate-limited per session`;
  return who;
}

/** Codes every operation may answer, and those the edge adds to every write: said once, above the tables. */
const EVERY_ROUTE: ErrorCode[] = ["INTERNAL", "SERVICE_UNAVAILABLE"];
const EVERY_WRITE = edgeErrors({ method: "post" } as RouteSpec).filter((c) => c !== "INVALID_INPUT");

/** The failures an operation documents, by status, but for the common ones (unless the route names them itself). */
function errors(route: RouteSpec): string {
  const own = new Set(route.errors ?? []);
  const common = new Set([...EVERY_ROUTE, ...(route.method === "get" ? [] : EVERY_WRITE)].filter((c) => !own.has(c)));
  const listed = operationResponses(route)
    .map((r) => ({ status: r.status, codes: (r.codes ?? []).filter((c) => !common.has(c)) }))
    .filter((r) => r.codes.length > 0)
    .map((r) => `${r.status} ${r.codes.map(code).join(", ")}`);
  return listed.length ? listed.join("; ") : "none";
}

const withStatus = (codes: ErrorCode[]) => codes.map((c) => `${ERROR_STATUS[c]} ${code(c)}`).join(", ");

function summary(route: RouteSpec): string {
  const notes = [
    ...(route.raw ? [`Answers ${code(route.rawResponse.mediaType)} without the envelope.`] : []),
    ...(route.csv ? ["Also as CSV: `?format=csv` or `Accept: text/csv`."] : []),
  ];
  return [text(route.summary.replace(/\.?$/, ".")), ...notes].join(" ");
}

const row = (route: RouteSpec) => [code(`${route.method.toUpperCase()} ${openApiPath(route.path)}`), access(route), summary(route), errors(route)];

/** The section between the markers of docs/api-reference.md. */
export function renderApiReference(routes: RouteSpec[]): string {
  const tags = [...new Set(routes.map((r) => r.tag))].sort(byTag);
  return [
    `## Every operation`, "",
    `${routes.length} operations, from the route table (daemon/http/routes/*-routes.ts), grouped by their OpenAPI tag; paths as the OpenAPI document writes them.`, "",
    `Not repeated in the Errors column: every operation may answer ${withStatus(EVERY_ROUTE)}; every POST and DELETE also ${withStatus(EVERY_WRITE)}.`, "",
    ...tags.flatMap((tag) => [
      `### ${tag}`, "",
      ...table(["Operation", "Sign-in", "What it does", "Errors"], routes.filter((r) => r.tag === tag).sort(byPath).map(row)),
      "",
    ]),
  ].join("\n");
}
