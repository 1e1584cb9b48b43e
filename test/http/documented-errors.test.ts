// The error statuses /api/openapi.json lists for each operation are the ones the edge really answers:
// every route is asked badly (no session; bad params, query and body; a foreign Origin; a body that is
// not JSON or too large) and each status it answers must be documented, and a GET that takes no input
// must not claim a 400 it cannot give. Bad input never reaches a handler, so nothing is changed.
import { Wallet } from "ethers";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { defineRoute, type RouteSpec } from "../../daemon/http/route.js";
import { z } from "zod";
import { buildOpenApi, openApiPath } from "../../daemon/http/openapi.js";
import { signIn, startTestDaemon, type TestDaemon } from "../helpers/daemon.js";

type Responses = Record<string, unknown>;

/** Each path parameter replaced by a value no parameter schema takes. */
const badPath = (route: RouteSpec) => route.path.replace(/:[A-Za-z0-9_]+/g, "not!valid");

/** Sends a request and returns its status only (an event stream is not read). */
async function status(d: TestDaemon, method: string, path: string, init: { headers?: Record<string, string>; body?: string } = {}) {
  const res = await fetch(`${d.url}${path}`, { method: method.toUpperCase(), ...init });
  await res.body?.cancel().catch(() => undefined);
  return res.status;
}

const json = { "Content-Type": "application/json" };

async function probes(d: TestDaemon, route: RouteSpec, token: string): Promise<Map<number, string>> {
  const answered = new Map<number, string>();
  const note = (s: number, what: string) => answered.set(s, what);
  const write = route.method !== "get";
  const auth = { Authorization: `Bearer ${token}` };
  const bad = `${badPath(route)}?zzz=1`;
  note(await status(d, route.method, route.path.includes(":") ? badPath(route) : route.path), "no session");
  note(await status(d, route.method, bad, write ? { headers: { ...auth, ...json }, body: '{"zzz":1}' } : { headers: auth }), "bad input");
  if (write) {
    note(await status(d, route.method, bad, { headers: { ...auth, Origin: "https://evil.example" } }), "foreign origin");
    note(await status(d, route.method, bad, { headers: { ...auth, "Content-Type": "text/plain" }, body: "x" }), "not JSON");
    note(await status(d, route.method, bad, { headers: { ...auth, ...json }, body: JSON.stringify({ pad: "x".repeat(17 * 1024) }) }), "too large");
  }
  return answered;
}

test("every 4xx the edge answers for a route is in its documented responses", async () => {
  const d = await startTestDaemon();
  try {
    const { token } = await signIn(d.http, Wallet.createRandom());
    const doc = (await d.http.get("/api/openapi.json")).body;
    for (const route of d.daemon.routes) {
      const responses = doc.paths[openApiPath(route.path)][route.method].responses as Responses;
      const answered = await probes(d, route, token);
      for (const [s, what] of answered) {
        if (s < 400 || s >= 500 || s === 404) continue; // 404: the not!valid placeholder may simply be unknown
        assert.ok(responses[String(s)], `${route.method} ${route.path} answers ${s} (${what}) but does not document it`);
      }
      if (route.auth) assert.ok(answered.has(401), `${route.method} ${route.path} without a session`);
      const takesInput = Boolean(route.body || route.query || route.params) || route.method !== "get";
      assert.is(Boolean(responses["400"]), takesInput, `${route.method} ${route.path}: 400 documented iff it takes input`);
      if (takesInput) assert.ok(answered.has(400), `${route.method} ${route.path} refuses bad input with 400`);
      if (route.limit) assert.ok(responses["429"], `${route.method} ${route.path} is rate limited`);
    }
  } finally {
    await d.close();
  }
});

test("the derivation stands on its own: a route that declares no errors still documents its edge's", () => {
  const routes: RouteSpec[] = [
    defineRoute({ method: "get", path: "/q", summary: "", tag: "t", auth: true, query: z.object({ n: z.coerce.number() }), response: z.null(), handler: () => null }),
    defineRoute({ method: "get", path: "/p/:id", summary: "", tag: "t", auth: false, params: z.object({ id: z.string() }), response: z.null(), handler: () => null }),
    defineRoute({ method: "get", path: "/plain", summary: "", tag: "t", auth: false, response: z.null(), handler: () => null }),
    defineRoute({ method: "post", path: "/w", summary: "", tag: "t", auth: false, limit: "orders", response: z.null(), handler: () => null }),
  ];
  const paths = buildOpenApi(routes, { version: "0", serverUrl: "http://x" }).paths as Record<string, Record<string, { responses: Responses }>>;
  const statuses = (path: string, method: string) => Object.keys(paths[path]![method]!.responses).sort();
  // 503: any route answers it while the database cannot be reached.
  assert.equal(statuses("/q", "get"), ["200", "400", "401", "500", "503"]);
  assert.equal(statuses("/p/{id}", "get"), ["200", "400", "500", "503"]);
  assert.equal(statuses("/plain", "get"), ["200", "500", "503"]);
  assert.equal(statuses("/w", "post"), ["200", "400", "403", "413", "415", "429", "500", "503"]);
});

test.run();
