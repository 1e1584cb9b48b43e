// The SSRF-safe POST and the wire formats, against real HTTP servers on loopback. "Public" here is
// played by a resolver that answers a public-looking address for a name while the server listens on
// 127.0.0.1: the tests that must connect pass allowPrivate, the ones that must refuse do not.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { refusalOf } from "../../daemon/alerts/address-rules.js";
import { parseAlertTarget, redactUrl, renderMessage } from "../../daemon/alerts/formats.js";
import { checkDestination, MAX_REPLY_BYTES, postOutbound } from "../../daemon/alerts/outbound.js";
import { AppError } from "../../daemon/errors.js";

type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void;

async function serve(handler: Handler): Promise<{ server: Server; url: string; hits: string[] }> {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => { hits.push(body); handler(req, body, res); });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { server, hits, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

const stop = (s: Server) => new Promise<void>((r) => { s.closeAllConnections(); s.close(() => r()); });
const msg = { headers: { "content-type": "application/json" }, body: '{"a":1}' };

test("refusalOf: private, loopback, link-local, metadata, unique-local, mapped and embedded IPv4 are refused; public ones pass", () => {
  for (const a of ["127.0.0.1", "10.1.2.3", "172.31.255.255", "192.168.0.1", "169.254.169.254", "100.100.100.200", "0.0.0.0",
    "224.0.0.1", "255.255.255.255", "::1", "::", "fe80::1", "fc00::1", "fd00:ec2::254", "ff02::1", "::ffff:127.0.0.1",
    "::ffff:7f00:1", "::ffff:169.254.169.254", "64:ff9b::a00:1", "2002:c0a8:101::1", "::127.0.0.1"]) {
    assert.ok(refusalOf(a), `${a} must be refused`);
  }
  for (const a of ["8.8.8.8", "1.1.1.1", "172.32.0.1", "100.128.0.1", "2606:4700:4700::1111", "::ffff:8.8.8.8", "64:ff9b::808:808"]) {
    assert.is(refusalOf(a), undefined, `${a} must pass`);
  }
});

test("postOutbound: a 2xx answers status, latency and the reply's start; headers and body arrive as given", async () => {
  let seen: IncomingMessage | undefined;
  const { server, url, hits } = await serve((req, _b, res) => { seen = req; res.end("thanks"); });
  try {
    const r = await postOutbound(new URL(`${url}/hook`), { headers: { ...msg.headers, "x-one": "1" }, body: msg.body }, { allowPrivate: true });
    assert.is(r.status, 200);
    assert.is(r.error, undefined);
    assert.is(r.replyExcerpt, "thanks");
    assert.ok(r.latencyMs >= 0);
    assert.equal(hits, ['{"a":1}']);
    assert.is(seen!.headers["x-one"], "1");
    assert.is(seen!.headers["cookie"], undefined);
  } finally { await stop(server); }
});

test("postOutbound without allowPrivate refuses a loopback address before connecting, and a name resolving to one", async () => {
  const { server, url, hits } = await serve((_r, _b, res) => res.end());
  try {
    const direct = await postOutbound(new URL(url), msg, { allowPrivate: false });
    assert.match(direct.error!, /loopback/);
    assert.is(direct.status, undefined);
    const port = new URL(url).port;
    const named = await postOutbound(new URL(`http://localhost:${port}/`), msg, { allowPrivate: false });
    assert.match(named.error!, /loopback/);
    // DNS answering one public and one private address: refused (the private one could be the one used).
    const mixed = await postOutbound(new URL(`http://hooks.example:${port}/`), msg, {
      allowPrivate: false, resolve: async () => [{ address: "93.184.216.34", family: 4 }, { address: "127.0.0.1", family: 4 }],
    });
    assert.match(mixed.error!, /127\.0\.0\.1/);
    assert.equal(hits, []);
  } finally { await stop(server); }
});

test("postOutbound connects to the address it checked, whatever the system's DNS says of the name", async () => {
  const { server, url, hits } = await serve((_r, _b, res) => res.end("ok"));
  try {
    const port = new URL(url).port;
    // The name does not exist in DNS: only the resolver's checked answer can have been used.
    const r = await postOutbound(new URL(`http://hooks.tradevault.invalid:${port}/`), msg, {
      allowPrivate: true, resolve: async () => [{ address: "127.0.0.1", family: 4 }],
    });
    assert.is(r.status, 200, r.error);
    assert.is(hits.length, 1);
  } finally { await stop(server); }
});

test("postOutbound follows no redirect: a 302 to a private address is a reported failure, the target never hit", async () => {
  const target = await serve((_r, _b, res) => res.end());
  const redirector = await serve((_r, _b, res) => { res.writeHead(302, { location: `${target.url}/inside` }); res.end(); });
  try {
    const r = await postOutbound(new URL(redirector.url), msg, { allowPrivate: true });
    assert.is(r.status, 302);
    assert.match(r.error!, /redirect.*not followed/);
    assert.equal(target.hits, []);
  } finally { await stop(target.server); await stop(redirector.server); }
});

test("postOutbound caps time and reply: a hanging endpoint is a timeout, a long reply is read only in part; a refused connection is an answer", async () => {
  const hang = await serve(() => {});
  const long = await serve((_r, _b, res) => { res.write("x".repeat(1024 * 1024)); });
  let hangStopped = false;
  try {
    const hung = await postOutbound(new URL(hang.url), msg, { allowPrivate: true, timeoutMs: 300 });
    // The answer names the cap that ended it: the abort, not the endpoint, ended the call (no wall clock
    // bound, which a loaded machine could break).
    assert.match(hung.error!, /within 0.3 s/);
    assert.is(hung.status, undefined);
    const big = await postOutbound(new URL(long.url), msg, { allowPrivate: true, timeoutMs: 5000 });
    assert.is(big.status, 200, big.error);
    assert.ok(big.replyExcerpt!.length <= MAX_REPLY_BYTES);
    const port = new URL(hang.url).port;
    await stop(hang.server);
    hangStopped = true;
    const refused = await postOutbound(new URL(`http://127.0.0.1:${port}/`), msg, { allowPrivate: true });
    assert.match(refused.error!, /ECONNREFUSED/);
    const tooBig = await postOutbound(new URL(long.url), { headers: {}, body: "y".repeat(65 * 1024) }, { allowPrivate: true });
    assert.match(tooBig.error!, /cap/);
  } finally { await stop(long.server); if (!hangStopped) await stop(hang.server); }
});

test("checkDestination: INVALID_INPUT with a detail for a private URL, passes with allowPrivate", async () => {
  const e = await checkDestination(new URL("http://10.0.0.5/hook"), { allowPrivate: false }, "body.url").then(() => undefined, (x) => x);
  assert.ok(e instanceof AppError);
  assert.is((e as AppError).code, "INVALID_INPUT");
  assert.equal(((e as AppError).details as Array<{ field: string }>)[0]!.field, "body.url");
  await checkDestination(new URL("http://10.0.0.5/hook"), { allowPrivate: true });
  const hung = await checkDestination(new URL("http://slow.example/"), { allowPrivate: false, timeoutMs: 200, resolve: () => new Promise(() => {}) })
    .then(() => undefined, (x) => x);
  assert.is((hung as AppError).code, "INVALID_INPUT", "a resolver that never answers is a refusal, not a hang");
});

const message = { title: "Vault 0x12…ab paused", text: "Vault 0x12…ab paused: daily drawdown 5.3% (limit 5%)", json: { id: 7 } };

test("renderMessage: each format's body has the shape its service documents", () => {
  const json = renderMessage("json", new URL("https://x.example/"), message);
  assert.equal(JSON.parse(json.body), { id: 7 });
  const slack = JSON.parse(renderMessage("slack", new URL("https://hooks.slack.com/services/T/B/C"), message).body);
  assert.type(slack.text, "string");
  assert.ok(slack.text.includes("daily drawdown 5.3%"));
  assert.equal(slack.blocks.map((b: { type: string }) => b.type), ["header", "section"]);
  assert.is(slack.blocks[1].text.type, "mrkdwn");
  const discord = JSON.parse(renderMessage("discord", new URL("https://discord.com/api/webhooks/1/a"), message).body);
  assert.ok(discord.content.includes("paused"));
  assert.is(discord.embeds[0].title, message.title);
  assert.is(discord.embeds[0].description, message.text);
  const tg = JSON.parse(renderMessage("telegram", new URL("https://api.telegram.org/bot123:abc/sendMessage?chat_id=-10042"), message).body);
  assert.equal(Object.keys(tg).sort(), ["chat_id", "text"]);
  assert.is(tg.chat_id, "-10042");
  const ntfy = renderMessage("ntfy", new URL("https://ntfy.sh/my-vaults"), message);
  assert.is(ntfy.body, message.text);
  assert.is(ntfy.headers.Title, "Vault 0x12...ab paused");
  assert.match(ntfy.headers["content-type"]!, /^text\/plain/);
});

test("parseAlertTarget: <format>:<url>, a bare URL is json; bad ones are INVALID_INPUT", () => {
  assert.equal(parseAlertTarget("https://a.example/x"), { format: "json", url: new URL("https://a.example/x") });
  assert.is(parseAlertTarget("slack:https://hooks.slack.com/x").format, "slack");
  assert.is(parseAlertTarget("ntfy:http://ntfy.lan/t").url.href, "http://ntfy.lan/t");
  for (const bad of ["ftp://a.example/", "slack:notaurl", "telegram:https://api.telegram.org/botX/sendMessage", "https://u:p@a.example/"]) {
    assert.throws(() => parseAlertTarget(bad), (e: unknown) => e instanceof AppError && e.code === "INVALID_INPUT", bad);
  }
  assert.is(redactUrl("https://api.telegram.org/bot123:abc/sendMessage?chat_id=1"), "https://api.telegram.org/bot<redacted>/sendMessage?chat_id=1");
});

test.run();
