// Sign-in and sessions against a real daemon: SIWE challenge, signature check, cookie, expiry.
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { sql } from "kysely";
import { randomWallet, signIn, startTestDaemon, type TestDaemon } from "../helpers/daemon.js";
import { rows } from "../helpers/stores.js";

const t = suite<{ d: TestDaemon }>("sign-in");
t.before(async (ctx) => {
  ctx.d = await startTestDaemon();
});
t.after(async (ctx) => {
  await ctx.d.close();
});

const countSessions = async (d: TestDaemon) => (await rows(d.daemon.store, sql<{ n: number }>`select count(*) as n from sessions`))[0]!.n;

async function challenge(d: TestDaemon, address: string) {
  const r = await d.http.post("/api/auth/challenge", { address });
  assert.is(r.status, 200, JSON.stringify(r.body));
  return r.body.data as { message: string; nonce: string };
}

function expectError(r: { status: number; body: any }, status: number, code: string) {
  assert.is(r.status, status, JSON.stringify(r.body));
  assert.is(r.body.ok, false);
  assert.is(r.body.error.code, code);
  assert.type(r.body.error.message, "string");
}

t("challenge is an EIP-4361 message for the EIP-55 address, the daemon's domain and chain", async ({ d }) => {
  const w = randomWallet();
  const c = await challenge(d, w.address.toLowerCase());
  const host = new URL(d.url).host;
  assert.ok(c.message.startsWith(`${new URL(d.url).protocol}//${host} wants you to sign in with your Ethereum account:\n${w.address}\n`));
  assert.match(c.message, `\nNonce: ${c.nonce}\n`);
  assert.match(c.message, "\nChain ID: 31337\n");
  assert.match(c.message, /\nExpiration Time: \S+Z/);
  assert.match(c.nonce, /^[A-Za-z0-9]{8,}$/);
});

t("happy path: login sets the cookie, the token works as cookie and bearer, logout ends it", async ({ d }) => {
  const w = randomWallet();
  const c = await challenge(d, w.address);
  const login = await d.http.post("/api/auth/login", {
    address: w.address,
    signature: await w.signMessage(c.message),
    nonce: c.nonce,
  });
  assert.is(login.status, 200);
  assert.is(login.body.ok, true);
  const { address, sessionToken } = login.body.data.user;
  assert.is(address, w.address);
  assert.match(sessionToken, /^[A-Za-z0-9_-]{43}$/); // 32 random bytes, base64url

  const setCookie = login.headers.get("set-cookie")!;
  assert.match(setCookie, `session=${sessionToken}`);
  for (const attr of ["httponly", "secure", "samesite=strict", "path=/"]) {
    assert.ok(setCookie.toLowerCase().split(/;\s*/).includes(attr), `cookie lacks ${attr}: ${setCookie}`);
  }

  const viaCookie = await d.http.get("/api/account", { cookie: `session=${sessionToken}` });
  assert.is(viaCookie.status, 200);
  assert.is(viaCookie.body.data.address, w.address);
  const viaBearer = await d.http.get("/api/account", { token: sessionToken });
  assert.is(viaBearer.status, 200);

  const out = await d.http.post("/api/auth/logout", undefined, { cookie: `session=${sessionToken}` });
  assert.is(out.status, 200);
  assert.equal(out.body, { ok: true, data: {} });
  expectError(await d.http.get("/api/account", { token: sessionToken }), 401, "UNAUTHENTICATED");
  expectError(await d.http.get("/api/account", { cookie: `session=${sessionToken}` }), 401, "UNAUTHENTICATED");
});

t("the database keeps only a hash of the session token", async ({ d }) => {
  const { token } = await signIn(d.http, randomWallet());
  const hashes = await rows(d.daemon.store, sql<{ token_hash: string }>`select token_hash from sessions`);
  assert.ok(hashes.length > 0);
  assert.not.ok(hashes.some((r) => r.token_hash.includes(token)));
  assert.ok(hashes.every((r) => /^[0-9a-f]{64}$/.test(r.token_hash)));
});

t("a nonce works once: a reused nonce gets 401 and no session", async ({ d }) => {
  const w = randomWallet();
  const c = await challenge(d, w.address);
  const body = { address: w.address, signature: await w.signMessage(c.message), nonce: c.nonce };
  assert.is((await d.http.post("/api/auth/login", body)).status, 200);
  const before = await countSessions(d);
  expectError(await d.http.post("/api/auth/login", body), 401, "UNAUTHENTICATED");
  assert.is(await countSessions(d), before);
});

t("two concurrent logins with one nonce yield exactly one session", async ({ d }) => {
  const w = randomWallet();
  const c = await challenge(d, w.address);
  const body = { address: w.address, signature: await w.signMessage(c.message), nonce: c.nonce };
  const before = await countSessions(d);
  const replies = await Promise.all(Array.from({ length: 5 }, () => d.http.post("/api/auth/login", body)));
  assert.equal(replies.map((r) => r.status).sort(), [200, 401, 401, 401, 401]);
  assert.is(await countSessions(d), before + 1);
});

t("an expired nonce gets 401", async ({ d }) => {
  const w = randomWallet();
  const c = await challenge(d, w.address);
  const signature = await w.signMessage(c.message);
  d.clock.advance(5 * 60_000 + 1);
  const before = await countSessions(d);
  expectError(await d.http.post("/api/auth/login", { address: w.address, signature, nonce: c.nonce }), 401, "UNAUTHENTICATED");
  assert.is(await countSessions(d), before);
});

t("a nonce issued to another address is refused, and is not burned for its owner", async ({ d }) => {
  const owner = randomWallet();
  const other = randomWallet();
  const c = await challenge(d, owner.address);
  const stolen = { address: other.address, signature: await other.signMessage(c.message), nonce: c.nonce };
  const before = await countSessions(d);
  expectError(await d.http.post("/api/auth/login", stolen), 401, "UNAUTHENTICATED");
  assert.is(await countSessions(d), before);
  const mine = { address: owner.address, signature: await owner.signMessage(c.message), nonce: c.nonce };
  assert.is((await d.http.post("/api/auth/login", mine)).status, 200);
});

t("a signature by another key is refused and does not burn the nonce", async ({ d }) => {
  const owner = randomWallet();
  const c = await challenge(d, owner.address);
  const forged = { address: owner.address, signature: await randomWallet().signMessage(c.message), nonce: c.nonce };
  const before = await countSessions(d);
  expectError(await d.http.post("/api/auth/login", forged), 401, "UNAUTHENTICATED");
  assert.is(await countSessions(d), before);
  const real = { ...forged, signature: await owner.signMessage(c.message) };
  assert.is((await d.http.post("/api/auth/login", real)).status, 200);
});

t("a signature over a tampered message is refused", async ({ d }) => {
  const w = randomWallet();
  const c = await challenge(d, w.address);
  const tampered = c.message.replace("Chain ID: 31337", "Chain ID: 1");
  assert.is.not(tampered, c.message);
  const before = await countSessions(d);
  const r = await d.http.post("/api/auth/login", { address: w.address, signature: await w.signMessage(tampered), nonce: c.nonce });
  expectError(r, 401, "UNAUTHENTICATED");
  assert.is(await countSessions(d), before);
});

t("malformed address, signature or nonce, missing and unknown fields: 400 with per-field details", async ({ d }) => {
  const w = randomWallet();
  const c = await challenge(d, w.address);
  const good = { address: w.address, signature: await w.signMessage(c.message), nonce: c.nonce };
  const cases: Array<[unknown, string]> = [
    [{ address: "0x1234" }, "body.address"],
    [{ address: 42 }, "body.address"],
    [{}, "body.address"],
  ];
  for (const [body, field] of cases) {
    const r = await d.http.post("/api/auth/challenge", body);
    expectError(r, 400, "INVALID_INPUT");
    assert.ok(r.body.error.details.some((x: { field: string }) => x.field === field), JSON.stringify(r.body));
  }
  const loginCases: Array<[unknown, string]> = [
    [{ ...good, signature: "0xdead" }, "body.signature"],
    [{ ...good, address: "not-an-address" }, "body.address"],
    [{ ...good, nonce: "has spaces!" }, "body.nonce"],
    [{ address: good.address }, "body.signature"],
    [{ ...good, extra: 1 }, "body"],
  ];
  const before = await countSessions(d);
  for (const [body, field] of loginCases) {
    const r = await d.http.post("/api/auth/login", body);
    expectError(r, 400, "INVALID_INPUT");
    assert.ok(r.body.error.details.some((x: { field: string }) => x.field === field), `${field}: ${JSON.stringify(r.body)}`);
  }
  assert.is(await countSessions(d), before);
  assert.is((await d.http.post("/api/auth/login", good)).status, 200, "the nonce survived all the bad attempts");
});

t("a body that is not JSON gets 415, broken JSON 400, an oversized body 413", async ({ d }) => {
  const text = await d.http.post("/api/auth/challenge", undefined, { raw: "address=0x", headers: { "Content-Type": "text/plain" } });
  expectError(text, 415, "UNSUPPORTED_MEDIA_TYPE");
  const broken = await d.http.post("/api/auth/challenge", undefined, { raw: "{\"address\":", headers: { "Content-Type": "application/json" } });
  expectError(broken, 400, "INVALID_INPUT");
  const big = JSON.stringify({ address: "0x" + "a".repeat(40), pad: "x".repeat(20_000) });
  const large = await d.http.post("/api/auth/challenge", undefined, { raw: big, headers: { "Content-Type": "application/json" } });
  expectError(large, 413, "PAYLOAD_TOO_LARGE");
});

t("missing or invalid session: 401 in the envelope; a stale cookie does not block signing in", async ({ d }) => {
  expectError(await d.http.get("/api/account"), 401, "UNAUTHENTICATED");
  expectError(await d.http.get("/api/account", { token: "nope" }), 401, "UNAUTHENTICATED");
  expectError(await d.http.post("/api/auth/logout"), 401, "UNAUTHENTICATED");
  const w = randomWallet();
  const c = await d.http.post("/api/auth/challenge", { address: w.address }, { cookie: "session=stale" });
  assert.is(c.status, 200);
});

t("GET /api/auth/session says who is signed in, and answers {user: null} (200, not 401) for nobody", async ({ d }) => {
  const nobody = await d.http.get("/api/auth/session");
  assert.is(nobody.status, 200, JSON.stringify(nobody.body));
  assert.equal(nobody.body, { ok: true, data: { user: null } });
  for (const o of [{ token: "nope" }, { cookie: "session=stale" }]) assert.equal((await d.http.get("/api/auth/session", o)).body.data, { user: null });
  const w = randomWallet();
  const { token, setCookie } = await signIn(d.http, w);
  const cookie = setCookie.split(";")[0]!;
  for (const o of [{ token }, { cookie }]) {
    const me = (await d.http.get("/api/auth/session", o)).body.data.user;
    assert.is(me.address, w.address, "EIP-55, as everywhere");
    assert.is(me.expiresAt, (await d.http.get("/api/account", o)).body.data.session.expiresAt);
  }
  assert.is((await d.http.post("/api/auth/logout", undefined, { token })).status, 200);
  assert.equal((await d.http.get("/api/auth/session", { token })).body.data, { user: null }, "a session ended by logout is nobody");
});

t("every response carries X-Request-Id; unknown routes and methods get envelopes", async ({ d }) => {
  const ok = await d.http.get("/healthz");
  assert.match(ok.headers.get("x-request-id") ?? "", /^[0-9a-f-]{36}$/);
  const missing = await d.http.get("/api/nope");
  expectError(missing, 404, "NOT_FOUND");
  assert.ok(missing.headers.get("x-request-id"));
  expectError(await d.http.get("/api/auth/login"), 405, "METHOD_NOT_ALLOWED");
  const echoed = await d.http.get("/healthz", { headers: { "X-Request-Id": "abc-123" } });
  assert.is(echoed.headers.get("x-request-id"), "abc-123");
});

t("a state-changing request from a foreign Origin is refused; our own origin passes", async ({ d }) => {
  const w = randomWallet();
  const foreign = await d.http.post("/api/auth/challenge", { address: w.address }, { headers: { Origin: "https://evil.example" } });
  expectError(foreign, 403, "FORBIDDEN");
  const own = await d.http.post("/api/auth/challenge", { address: w.address }, { headers: { Origin: new URL(d.url).origin } });
  assert.is(own.status, 200);
});

t("POSTs without a body take an empty body or {}, and refuse anything else", async ({ d }) => {
  const a = await signIn(d.http, randomWallet());
  const b = await signIn(d.http, randomWallet());
  const c = await signIn(d.http, randomWallet());
  assert.is((await d.http.post("/api/auth/logout", undefined, { token: a.token })).status, 200);
  assert.is((await d.http.post("/api/auth/logout", {}, { token: b.token })).status, 200);
  const extra = await d.http.post("/api/auth/logout", { all: true }, { token: c.token });
  expectError(extra, 400, "INVALID_INPUT");
  assert.is((await d.http.get("/api/account", { token: c.token })).status, 200, "the refused logout did nothing");
});

t.run();
