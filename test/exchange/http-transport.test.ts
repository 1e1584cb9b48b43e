// The exchange transport on node:http against a real local server: the body as the venue sends it
// (compressed or not), and every failure as the SDK's HttpRequestError, so the adapter translates
// it as before (a status for 5xx, a cause for a timeout, an abort or a dropped connection).
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { HttpRequestError } from "@nktkas/hyperliquid";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { brotliCompressSync, gzipSync } from "node:zlib";
import { nodeHttpTransport } from "../../daemon/exchange/http-transport.js";
import { translateExchangeError } from "../../daemon/exchange/translate-error.js";

type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void;
const t = suite<{ server: Server; url: string; handle: Handler }>("exchange http transport");

t.before(async (ctx) => {
  ctx.server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => ctx.handle(req, Buffer.concat(chunks).toString("utf8"), res));
  });
  await new Promise<void>((r) => ctx.server.listen(0, "127.0.0.1", r));
  ctx.url = `http://127.0.0.1:${(ctx.server.address() as { port: number }).port}`;
});
t.after(async (ctx) => {
  ctx.server.closeAllConnections();
  await new Promise((r) => ctx.server.close(r));
});

const json = (res: ServerResponse, status: number, text: string | Buffer, encoding?: string) => {
  res.writeHead(status, { "Content-Type": "application/json", ...(encoding ? { "Content-Encoding": encoding } : {}) });
  res.end(text);
};

async function failure(p: Promise<unknown>): Promise<HttpRequestError> {
  try {
    await p;
  } catch (e) {
    assert.instance(e, HttpRequestError);
    return e as HttpRequestError;
  }
  throw new Error("expected a failure");
}

t("posts the payload as JSON to the endpoint and reads plain, gzip and brotli bodies", async (ctx) => {
  const seen: string[] = [];
  const encodings = [undefined, "gzip", "br"];
  let i = 0;
  ctx.handle = (req, body, res) => {
    seen.push(`${req.method} ${req.url} ${req.headers["content-type"]} ${body}`);
    const answer = JSON.stringify({ status: "ok", n: i });
    const encoding = encodings[i++];
    json(res, 200, encoding === "gzip" ? gzipSync(answer) : encoding === "br" ? brotliCompressSync(answer) : answer, encoding);
  };
  const transport = nodeHttpTransport({ url: ctx.url, isTestnet: true, timeoutMs: 5_000 });
  assert.equal(await transport.request("info", { type: "allMids" }), { status: "ok", n: 0 });
  assert.equal(await transport.request("exchange", { action: 1 }), { status: "ok", n: 1 });
  assert.equal(await transport.request("info", { type: "meta" }), { status: "ok", n: 2 });
  assert.equal(seen, [
    'POST /info application/json {"type":"allMids"}',
    'POST /exchange application/json {"action":1}',
    'POST /info application/json {"type":"meta"}',
  ]);
  assert.is(transport.isTestnet, true);
});

t("a 5xx, a non-JSON answer and an error body fail with the status the adapter reports", async (ctx) => {
  const transport = nodeHttpTransport({ url: ctx.url, isTestnet: false, timeoutMs: 5_000 });
  ctx.handle = (_req, _body, res) => json(res, 503, "overloaded");
  const e503 = await failure(transport.request("info", {}));
  assert.is(e503.response?.status, 503);
  assert.match(translateExchangeError(e503, "allMids").message, "(HTTP 503)");
  ctx.handle = (_req, _body, res) => {
    res.writeHead(200, { "Content-Type": "text/html" });
    res.end("<html>maintenance</html>");
  };
  assert.is((await failure(transport.request("info", {}))).response?.status, 200);
  ctx.handle = (_req, _body, res) => json(res, 200, JSON.stringify({ type: "error", message: "bad request shape" }));
  const bad = await failure(transport.request("info", {}));
  assert.match(bad.message, "bad request shape");
});

t("a timeout, the caller's abort, a dropped connection and a cut-off answer fail without an answer, as unavailable", async (ctx) => {
  const transport = nodeHttpTransport({ url: ctx.url, isTestnet: false, timeoutMs: 200 });
  ctx.handle = () => undefined; // never answers
  const slow = await failure(transport.request("info", {}));
  assert.is(slow.response, undefined);
  assert.is(translateExchangeError(slow, "mids").code, "EXCHANGE_UNAVAILABLE");
  const patient = nodeHttpTransport({ url: ctx.url, isTestnet: false, timeoutMs: 60_000 });
  const abort = new AbortController();
  const pending = patient.request("exchange", {}, abort.signal);
  abort.abort();
  assert.is((await failure(pending)).response, undefined);
  ctx.handle = (req) => req.socket.destroy();
  const dropped = await failure(patient.request("exchange", {}));
  assert.is(translateExchangeError(dropped, "order").retryable, true);
  ctx.handle = (_req, _body, res) => {
    res.writeHead(200, { "Content-Type": "application/json", "Content-Length": "100" });
    res.write('{"status":"ok","resp');
    setImmediate(() => res.socket?.destroy());
  };
  const cut = await failure(patient.request("exchange", {}));
  assert.is(translateExchangeError(cut, "order").code, "EXCHANGE_UNAVAILABLE");
});

t.run();
