// The OpenAPI document describes exactly the routes the router serves.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { openApiPath } from "../../daemon/http/openapi.js";
import { Wallet } from "ethers";
import { signIn, startTestDaemon } from "../helpers/daemon.js";

test("every served route is in /api/openapi.json and every documented operation is served", async () => {
  const d = await startTestDaemon();
  try {
    const r = await d.http.get("/api/openapi.json");
    assert.is(r.status, 200);
    const doc = r.body;
    assert.is(doc.openapi, "3.1.0");

    const served = new Set<string>();
    for (const layer of d.daemon.router.stack) {
      for (const method of layer.methods) {
        if (method === "HEAD") continue;
        served.add(`${method.toLowerCase()} ${openApiPath(String(layer.path))}`);
      }
    }
    const documented = new Set<string>();
    for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, unknown>>)) {
      for (const method of Object.keys(ops)) documented.add(`${method} ${path}`);
    }
    assert.equal([...served].sort(), [...documented].sort());
    for (const must of ["post /api/auth/challenge", "post /api/auth/login", "post /api/auth/logout", "get /api/account", "get /healthz"]) {
      assert.ok(documented.has(must), must);
    }
  } finally {
    await d.close();
  }
});

test("documented operations carry request schemas, security and error responses", async () => {
  const d = await startTestDaemon();
  try {
    const doc = (await d.http.get("/api/openapi.json")).body;
    const login = doc.paths["/api/auth/login"].post;
    const schema = login.requestBody.content["application/json"].schema;
    assert.equal(schema.required.sort(), ["address", "nonce", "signature"]);
    assert.is(schema.additionalProperties, false);
    assert.equal(login.security, []);
    assert.ok(login.responses["401"] && login.responses["400"] && login.responses["429"]);
    const account = doc.paths["/api/account"].get;
    assert.equal(account.security, [{ sessionCookie: [] }, { bearer: [] }]);
    assert.ok(account.responses["401"]);
    assert.is(doc.components.securitySchemes.sessionCookie.name, "session");
  } finally {
    await d.close();
  }
});

test("routes that answer without the envelope document what they answer, and serve it", async () => {
  const d = await startTestDaemon();
  try {
    const doc = (await d.http.get("/api/openapi.json")).body;
    const events = doc.paths["/api/events"].get.responses["200"];
    assert.equal(Object.keys(events.content), ["text/event-stream"]);
    assert.match(events.description, "event: <type>");
    assert.equal(Object.keys(doc.paths["/api/openapi.json"].get.responses["200"].content), ["application/json"]);
    const self = doc.paths["/api/openapi.json"].get.responses["200"].content["application/json"].schema;
    assert.equal(Object.keys(self.properties).sort(), ["components", "info", "openapi", "paths", "servers"], "the document, no envelope");

    const { token } = await signIn(d.http, Wallet.createRandom());
    const abort = new AbortController();
    const r = await fetch(`${d.url}/api/events`, { headers: { Authorization: `Bearer ${token}` }, signal: abort.signal });
    assert.is(r.status, 200);
    assert.match(r.headers.get("content-type") ?? "", /^text\/event-stream/);
    abort.abort();
    await r.body?.cancel().catch(() => undefined);
  } finally {
    await d.close();
  }
});

test.run();
