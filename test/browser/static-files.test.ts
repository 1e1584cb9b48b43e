// The daemon serves the built dashboard: content types, caching (hashed bundles for good, the page
// revalidated), a CSP that allows only this origin, API routes first, and nothing outside dist/web.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { request } from "node:http";
import { startTestDaemon, type TestDaemon } from "../helpers/daemon.js";
import { BUSY_MACHINE } from "../helpers/busy-machine.js";

let d: TestDaemon;

/** A raw GET, so the path reaches the daemon exactly as written (fetch would normalize "..") */
function rawGet(path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  const url = new URL(d.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path, method: "GET", headers }, (res) => {
      let body = "";
      res.on("data", (c) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

test.before(async () => {
  d = await startTestDaemon({ startOracle: false, config: BUSY_MACHINE });
});
test.after(async () => {
  await d.close();
});

test("/ is the dashboard page with a strict CSP, revalidated on each visit", async () => {
  const r = await rawGet("/");
  assert.is(r.status, 200);
  assert.match(String(r.headers["content-type"]), /^text\/html; charset=utf-8/);
  assert.match(r.body, /<script type="module" src="\/assets\/main-[A-Z0-9]{8}\.js">/);
  assert.is(r.headers["cache-control"], "no-cache");
  const csp = String(r.headers["content-security-policy"]);
  for (const d of ["default-src 'self'", "script-src 'self'", "style-src 'self'", "connect-src 'self'", "frame-ancestors 'none'"]) assert.ok(csp.includes(d), csp);
  assert.not.match(csp, /unsafe|\*|https?:/);
  assert.is(r.headers["x-content-type-options"], "nosniff");
  const head = await fetch(`${d.url}/`, { method: "HEAD" });
  assert.is(head.status, 200);
  assert.is(head.headers.get("content-length"), String(Buffer.byteLength(r.body)));
  assert.is(await head.text(), "");
  const again = await rawGet("/", { "If-Modified-Since": String(r.headers["last-modified"]) });
  assert.is(again.status, 304);
});

test("hashed bundles are JavaScript and CSS, cached immutably", async () => {
  const page = (await rawGet("/")).body;
  const js = /src="(\/assets\/main-[A-Z0-9]{8}\.js)"/.exec(page)![1]!;
  const css = /href="(\/assets\/style-[A-Z0-9]{8}\.css)"/.exec(page)![1]!;
  const a = await rawGet(js);
  assert.is(a.status, 200);
  assert.match(String(a.headers["content-type"]), /^text\/javascript/);
  assert.is(a.headers["cache-control"], "public, max-age=31536000, immutable");
  const b = await rawGet(css);
  assert.match(String(b.headers["content-type"]), /^text\/css/);
});

test("the icon the page links is served, so browsers do not ask for /favicon.ico and log a 404", async () => {
  assert.match((await rawGet("/")).body, /<link rel="icon" href="\/favicon.svg" type="image\/svg\+xml">/);
  const icon = await rawGet("/favicon.svg");
  assert.is(icon.status, 200);
  assert.is(icon.headers["content-type"], "image/svg+xml");
  assert.match(icon.body, /^<svg /);
});

test("no path leaves dist/web: traversal, encoded traversal, dotfiles and folders answer the API's 404", async () => {
  for (const path of ["/../../package.json", "/assets/../../../package.json", "/%2e%2e/%2e%2e/package.json", "/%2e%2e/package.json", "/%2e%2e%2fpackage.json",
    "/assets/..%2f..%2f..%2fpackage.json", "/..%5cpackage.json", "/.env", "/assets", "/assets/", "/nope.html", "/%00"]) {
    const r = await rawGet(path);
    assert.is(r.status, 404, path);
    assert.is(JSON.parse(r.body).error.code, "NOT_FOUND", path);
    assert.not.match(r.body, /"name":\s*"tradevault"/, path);
  }
});

test("API routes keep precedence and unknown API paths stay JSON 404s", async () => {
  const health = await rawGet("/healthz");
  assert.match(String(health.headers["content-type"]), /application\/json/);
  const unknown = await rawGet("/api/index.html");
  assert.is(unknown.status, 404);
  assert.is(JSON.parse(unknown.body).error.code, "NOT_FOUND");
  const post = await d.http.post("/");
  assert.is(post.status, 404, "only GET and HEAD serve files");
});

test.run();
