// The edge's answers that come from no route: 405 and OPTIONS with Allow, CORS preflights, and a 401
// a browser user can act on.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { startTestDaemon, type TestDaemon } from "../helpers/daemon.js";

const APP = "https://app.example";

/** Allow as a set: the order is cosmetic. */
const allowOf = (headers: Headers) => new Set((headers.get("allow") ?? "").split(/,\s*/).filter(Boolean));

const raw = (d: TestDaemon, method: string, path: string, headers: Record<string, string> = {}) =>
  fetch(`${d.url}${path}`, { method, headers });

test("a known path asked with a method it does not serve: 405 with Allow naming what it serves", async () => {
  const d = await startTestDaemon();
  try {
    const put = await d.http.request("PUT", "/api/orders/7", {});
    assert.is(put.status, 405);
    assert.is(put.body.error.code, "METHOD_NOT_ALLOWED");
    assert.equal(allowOf(put.headers), new Set(["GET", "HEAD", "DELETE", "OPTIONS"]));

    const get = await d.http.get("/api/trade");
    assert.is(get.status, 405);
    assert.equal(allowOf(get.headers), new Set(["POST", "OPTIONS"]));

    const unknown = await d.http.get("/api/no-such-thing");
    assert.is(unknown.status, 404);
    assert.is(unknown.headers.get("allow"), null);

    // A method no route uses is no different: 405 on a route's path, 404 on any other, both in the envelope.
    const odd = await raw(d, "PROPFIND", "/api/trade");
    assert.is(odd.status, 405);
    assert.is(((await odd.json()) as { error: { code: string } }).error.code, "METHOD_NOT_ALLOWED");
    assert.equal(allowOf(odd.headers), new Set(["POST", "OPTIONS"]));
    const oddElsewhere = await raw(d, "PROPFIND", "/api/no-such-thing");
    assert.is(oddElsewhere.status, 404);
    assert.is(((await oddElsewhere.json()) as { error: { code: string } }).error.code, "NOT_FOUND");
  } finally {
    await d.close();
  }
});

test("OPTIONS that is not a preflight: 204, Allow, no body", async () => {
  const d = await startTestDaemon();
  try {
    const r = await raw(d, "OPTIONS", "/api/vaults/0x0000000000000000000000000000000000000001/close");
    assert.is(r.status, 204);
    assert.equal(allowOf(r.headers), new Set(["POST", "OPTIONS"]));
    assert.is(await r.text(), "");
    assert.is(r.headers.get("content-type"), null);
    assert.ok(r.headers.get("x-request-id"));
    assert.is((await raw(d, "OPTIONS", "/api/no-such-thing")).status, 404);
  } finally {
    await d.close();
  }
});

test("a CORS preflight from an allowed origin is answered by CORS, as before", async () => {
  const d = await startTestDaemon({ config: { corsOrigins: [APP] } });
  try {
    const r = await raw(d, "OPTIONS", "/api/trade", {
      Origin: APP,
      "Access-Control-Request-Method": "POST",
      "Access-Control-Request-Headers": "content-type,authorization",
    });
    assert.is(r.status, 204);
    assert.is(r.headers.get("access-control-allow-origin"), APP);
    assert.is(r.headers.get("access-control-allow-credentials"), "true");
    assert.match(r.headers.get("access-control-allow-methods") ?? "", /POST/);
    assert.match((r.headers.get("access-control-allow-headers") ?? "").toLowerCase(), /authorization/);
    assert.is(r.headers.get("allow"), null, "the preflight never reached the router");
  } finally {
    await d.close();
  }
});

test("401 tells any client how to sign in, naming the API and no CLI command", async () => {
  const d = await startTestDaemon();
  try {
    for (const r of [await d.http.get("/api/account"), await d.http.post("/api/trade", { symbol: "BTC", side: "buy", size: 1 })]) {
      assert.is(r.status, 401);
      assert.is(r.body.error.code, "UNAUTHENTICATED");
      assert.match(r.body.error.message, "POST /api/auth/challenge");
      assert.match(r.body.error.message, "/api/auth/login");
      assert.not.match(r.body.error.message, /tradevault /);
    }
  } finally {
    await d.close();
  }
});

test.run();
