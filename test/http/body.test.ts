// The JSON body reader (middleware/body.ts) over real HTTP, in a bare Koa app with the daemon's error
// envelope: what it reads, what it refuses and with which code, and what it leaves alone.
import { request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { brotliCompressSync, gzipSync } from "node:zlib";
import Koa from "koa";
import pino from "pino";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { BODY_LIMIT_BYTES, jsonBody } from "../../daemon/http/middleware/body.js";
import { errorEnvelope } from "../../daemon/http/middleware/errors.js";
import { JsonNumber } from "../../daemon/http/json-number.js";

const t = suite<{ server: Server; port: number; seen: number }>("json body");

t.before(async (ctx) => {
  const app = new Koa();
  const log = pino({ level: "silent" });
  app.use(errorEnvelope(log));
  app.use(jsonBody());
  ctx.seen = 0;
  app.use((k) => {
    ctx.seen += 1;
    const body = k.request.body;
    // A JsonNumber shows as "#<its text>", undefined as the string "undefined".
    const shown = body === undefined ? "undefined" : JSON.parse(JSON.stringify(body, (_k, v) => (v instanceof JsonNumber ? `#${v.text}` : v)));
    k.body = { ok: true, data: { body: shown } };
  });
  ctx.server = app.listen(0, "127.0.0.1");
  await new Promise((r) => ctx.server.once("listening", r));
  ctx.port = (ctx.server.address() as AddressInfo).port;
});
t.after(async (ctx) => {
  await new Promise((r) => ctx.server.close(r));
});

interface Sent {
  method?: string;
  headers?: Record<string, string | number>;
  /** Written in these pieces; without a Content-Length header node sends them chunked. */
  chunks?: Array<string | Buffer>;
}

function send(port: number, o: Sent): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: "127.0.0.1", port, path: "/x", method: o.method ?? "POST", headers: o.headers ?? {} }, (res) => {
      let text = "";
      res.setEncoding("utf8").on("data", (c: string) => (text += c)).on("end", () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
    });
    req.on("error", reject);
    for (const c of o.chunks ?? []) req.write(c);
    req.end();
  });
}

const json = (text: string | Buffer, extra: Record<string, string | number> = {}): Sent => ({
  headers: { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(text), ...extra },
  chunks: [text],
});

function refused(r: { status: number; body: any }, status: number, code: string) {
  assert.is(r.status, status, JSON.stringify(r.body));
  assert.is(r.body.ok, false);
  assert.is(r.body.error.code, code);
}

t("a JSON object is parsed once, each number kept as its text; a charset parameter is fine", async ({ port }) => {
  const r = await send(port, json(`{"a":"x","n":0.10,"big":9007199254740993,"list":[1]}`, { "Content-Type": "application/json; charset=utf-8" }));
  assert.is(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.data.body, { a: "x", n: "#0.10", big: "#9007199254740993", list: ["#1"] });
});

t("a body in pieces (chunked, no Content-Length) is read whole", async ({ port }) => {
  const r = await send(port, { headers: { "Content-Type": "application/json" }, chunks: ['{"a":', '"b', 'c"}'] });
  assert.is(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.data.body, { a: "bc" });
});

t("a declared body in pieces is decoded whole, a character split between them", async ({ port }) => {
  const bytes = Buffer.from('{"a":"café €"}', "utf8");
  const cut = bytes.indexOf(0xc3) + 1; // inside "é"
  const split = await send(port, { headers: { "Content-Type": "application/json", "Content-Length": bytes.length }, chunks: [bytes.subarray(0, cut), bytes.subarray(cut)] });
  assert.equal(split.body.data.body, { a: "café €" });
});

t("over the limit: 413 whether the length is declared or only found while reading", async (ctx) => {
  const { port } = ctx;
  const before = ctx.seen;
  const big = JSON.stringify({ pad: "x".repeat(BODY_LIMIT_BYTES) });
  refused(await send(port, json(big)), 413, "PAYLOAD_TOO_LARGE");
  const pieces = Array.from({ length: 20 }, () => "x".repeat(1024));
  refused(await send(port, { headers: { "Content-Type": "application/json" }, chunks: ['{"pad":"', ...pieces, '"}'] }), 413, "PAYLOAD_TOO_LARGE");
  const atLimit = JSON.stringify({ pad: "x".repeat(BODY_LIMIT_BYTES - 10) });
  assert.is(Buffer.byteLength(atLimit), BODY_LIMIT_BYTES);
  const ok = await send(port, json(atLimit));
  assert.is(ok.status, 200, "exactly the limit is allowed");
  assert.is(ctx.seen - before, 1, "the handler ran only for the body within the limit");
});

t("compressed bodies are inflated (gzip, br) and the limit holds after inflating", async ({ port }) => {
  const gz = await send(port, json(gzipSync('{"a":"gz"}'), { "Content-Encoding": "gzip" }));
  assert.equal(gz.body.data.body, { a: "gz" });
  const br = await send(port, json(brotliCompressSync('{"a":"br"}'), { "Content-Encoding": "br" }));
  assert.equal(br.body.data.body, { a: "br" });
  const bomb = gzipSync(JSON.stringify({ pad: "x".repeat(10 * BODY_LIMIT_BYTES) }));
  assert.ok(bomb.length < BODY_LIMIT_BYTES);
  refused(await send(port, json(bomb, { "Content-Encoding": "gzip" })), 413, "PAYLOAD_TOO_LARGE");
  refused(await send(port, json(Buffer.from("not gzip"), { "Content-Encoding": "gzip" })), 400, "INVALID_INPUT");
  refused(await send(port, json("{}", { "Content-Encoding": "compress" })), 415, "UNSUPPORTED_MEDIA_TYPE");
});

t("a body in another media type is 415, broken JSON or a bare value 400", async ({ port }) => {
  refused(await send(port, { headers: { "Content-Type": "text/plain", "Content-Length": 3 }, chunks: ["a=b"] }), 415, "UNSUPPORTED_MEDIA_TYPE");
  refused(await send(port, { headers: { "Content-Length": 2 }, chunks: ["{}"] }), 415, "UNSUPPORTED_MEDIA_TYPE");
  for (const text of ['{"a":', '"just a string"', "12", "{\"a\":01}"]) {
    const r = await send(port, json(text));
    refused(r, 400, "INVALID_INPUT");
    assert.match(r.body.error.message, /not valid JSON/);
  }
});

t("no body: a POST without one has none, an empty JSON one is {}, a byte-order mark is dropped", async ({ port }) => {
  assert.equal((await send(port, {})).body.data.body, "undefined");
  assert.equal((await send(port, json(""))).body.data.body, {});
  assert.equal((await send(port, json("\uFEFF{\"a\":1}"))).body.data.body, { a: "#1" });
});

t("a GET is not read: its JSON body is ignored, any other is refused", async ({ port }) => {
  assert.equal((await send(port, { method: "GET" })).body.data.body, "undefined");
  assert.equal((await send(port, { method: "GET", ...json('{"a":1}') })).body.data.body, "undefined");
  refused(await send(port, { method: "GET", headers: { "Content-Type": "text/plain", "Content-Length": 1 }, chunks: ["a"] }), 415, "UNSUPPORTED_MEDIA_TYPE");
});

t.run();
