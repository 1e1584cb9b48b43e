// Who may move the embedded sim's prices (and auto-deleverage a position) through the API, and how
// far. `open`: any signed-in user; `operator`: only with the token the daemon keeps in
// <data-dir>/keys/operator.token (403 without); `off`: no route (404). In every mode a move is at most
// 20% from the mark and stays within 0.1x to 10x of the market's price at the daemon's start; the
// sim's own loopback control is not bounded.
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { randomWallet, signIn, startTestDaemon, trader, type FakeClock, type TestDaemon } from "../helpers/daemon.js";
import { tempDir } from "../helpers/util.js";

const tokenFile = (d: TestDaemon) => join(d.dataDir, "keys", "operator.token");
const HEADER = "X-Tradevault-Operator";

async function stranger(d: TestDaemon) {
  return (await signIn(d.http, randomWallet())).token;
}

const move = (d: TestDaemon, token: string, symbol: string, price: string, operator?: string) =>
  d.http.post("/api/sim/price", { symbol, price }, { token, headers: operator === undefined ? {} : { [HEADER]: operator } });

// ---- open ----

const open = suite<{ d: TestDaemon }>("--sim-controls open");
open.before(async (ctx) => {
  ctx.d = await startTestDaemon({ startOracle: false });
});
open.after(async (ctx) => ctx.d?.close());

open("a loopback daemon is open by default: /healthz says so and any signed-in user moves a price", async ({ d }) => {
  assert.equal((await d.http.get("/healthz")).body.data.sim, { controls: "open" });
  const r = await move(d, await stranger(d), "BTC", "61000");
  assert.is(r.status, 200, JSON.stringify(r.body));
  assert.is(d.daemon.sim!.mark("BTC"), "61000");
});

open("a move is at most 20% from the mark per call (400 naming the bound; the mark stays)", async ({ d }) => {
  const token = await stranger(d);
  d.daemon.sim!.setPrice("ETH", "3000");
  for (const price of ["2399.99", "3600.01", "1000"]) {
    const r = await move(d, token, "ETH", price);
    assert.is(r.status, 400, price);
    assert.is(r.body.error.code, "INVALID_INPUT");
    assert.match(r.body.error.message, /more than 20% from its mark 3000; one move may go from 2400 to 3600/, price);
    assert.equal(r.body.error.details, [{ field: "body.price", message: r.body.error.message }]);
  }
  assert.is(d.daemon.sim!.mark("ETH"), "3000", "refused moves leave the mark alone");
  assert.is((await move(d, token, "ETH", "2400")).status, 200, "exactly 20% down is allowed");
  assert.is((await move(d, token, "ETH", "2880")).status, 200, "exactly 20% up is allowed");
});

open("a price stays within 0.1x to 10x of the market's price at the daemon's start", async ({ d }) => {
  const token = await stranger(d);
  // The sim's own loopback control is not bounded: the machine's own user put SOL near the floor.
  d.daemon.sim!.setPrice("SOL", "16");
  const low = await move(d, token, "SOL", "14.9");
  assert.is(low.status, 400);
  assert.match(low.body.error.message, /outside 0\.1x to 10x of its price when the daemon started \(150\): from 15 to 1500/);
  assert.is((await move(d, token, "SOL", "15")).status, 200, "exactly 0.1x is allowed");
  d.daemon.sim!.setPrice("SOL", "1400");
  assert.is((await move(d, token, "SOL", "1500.01")).status, 400);
  assert.is((await move(d, token, "SOL", "1500")).status, 200, "exactly 10x is allowed");
  assert.is(d.daemon.sim!.mark("SOL"), "1500");
});

open("an unknown symbol or a malformed price is a 400 on its field", async ({ d }) => {
  const token = await stranger(d);
  const unknown = await move(d, token, "DOGE", "1");
  assert.is(unknown.status, 400);
  assert.is(unknown.body.error.details[0].field, "body.symbol");
  assert.match(unknown.body.error.message, /BTC, ETH, SOL/);
  assert.is((await move(d, token, "BTC", "-5")).status, 400);
});

open("/api/sim/adl: the caller's own position by default, another account's when named; refusals are 400", async ({ d }) => {
  d.daemon.sim!.setPrice("BTC", "60000");
  const [a, b] = await Promise.all([trader(d, 10_000), trader(d, 10_000)]);
  for (const who of [a, b]) {
    const r = await d.http.post("/api/trade", { symbol: "BTC", side: "buy", size: 0.1 }, { token: who.token });
    assert.is(r.status, 200, JSON.stringify(r.body));
  }
  const own = await d.http.post("/api/sim/adl", { symbol: "btc", size: "0.04" }, { token: a.token });
  assert.is(own.status, 200, JSON.stringify(own.body));
  const { closedPnl: _, tid, ...rest } = own.body.data;
  assert.equal(rest, { user: a.wallet.address, symbol: "BTC", side: "A", size: "0.04", price: "60000", position: "0.06" });
  assert.ok(Number.isSafeInteger(tid));
  const other = await d.http.post("/api/sim/adl", { symbol: "BTC", user: b.wallet.address.toLowerCase() }, { token: a.token });
  assert.equal([other.status, other.body.data?.user, other.body.data?.position], [200, b.wallet.address, "0"]);
  for (const [body, field] of [[{ symbol: "DOGE" }, "body.symbol"], [{ symbol: "BTC", user: "0x12" }, "body.user"], [{ symbol: "BTC", size: -1 }, "body.size"]] as const) {
    const r = await d.http.post("/api/sim/adl", body, { token: a.token });
    assert.is(r.status, 400, JSON.stringify(body));
    assert.is(r.body.error.details?.[0]?.field, field, JSON.stringify(r.body));
  }
  const none = await d.http.post("/api/sim/adl", { symbol: "BTC" }, { token: b.token });
  assert.is(none.status, 400);
  assert.match(none.body.error.message, /the sim refused: .* has no BTC position to deleverage/);
});

open.run();

// ---- operator ----

const op = suite<{ d: TestDaemon; dir: ReturnType<typeof tempDir> }>("--sim-controls operator");
const operatorDaemon = (dataDir: string, clock?: FakeClock) => startTestDaemon({ dataDir, clock, startOracle: false, config: { simControls: "operator" } });
op.before(async (ctx) => {
  ctx.dir = tempDir();
  ctx.d = await operatorDaemon(ctx.dir.path);
});
op.after(async (ctx) => {
  await ctx.d?.close();
  ctx.dir.remove();
});

op("a stranger without the operator token gets 403, and the mark does not move", async ({ d }) => {
  assert.equal((await d.http.get("/healthz")).body.data.sim, { controls: "operator" });
  const token = await stranger(d);
  const before = d.daemon.sim!.mark("BTC");
  for (const given of [undefined, "", "wrong", "00".repeat(32), `${readFileSync(tokenFile(d), "utf8").trim()}0`]) {
    const r = await move(d, token, "BTC", "61000", given);
    assert.is(r.status, 403, `token ${JSON.stringify(given)}`);
    assert.is(r.body.error.code, "FORBIDDEN");
    assert.match(r.body.error.message, /X-Tradevault-Operator/);
  }
  assert.is(d.daemon.sim!.mark("BTC"), before);
  assert.is((await d.http.post("/api/sim/price", { symbol: "BTC", price: "61000" })).status, 401, "the session is still needed");
  const adl = await d.http.post("/api/sim/adl", { symbol: "BTC" }, { token });
  assert.equal([adl.status, adl.body.error.code], [403, "FORBIDDEN"], "deleveraging takes the token too");
  const secret = readFileSync(tokenFile(d), "utf8").trim();
  const allowed = await d.http.post("/api/sim/adl", { symbol: "BTC" }, { token, headers: { [HEADER]: secret } });
  assert.equal([allowed.status, allowed.body.error?.code], [400, "INVALID_INPUT"], "past the gate: the sim says there is no position");
});

op("the token from <data-dir>/keys/operator.token (0600) moves it, within the same bounds", async ({ d }) => {
  const file = tokenFile(d);
  assert.is(statSync(file).mode & 0o777, 0o600);
  assert.is(statSync(join(d.dataDir, "keys")).mode & 0o077, 0, "the keys folder is the owner's only");
  const secret = readFileSync(file, "utf8").trim();
  assert.match(secret, /^[0-9a-f]{64}$/);
  const token = await stranger(d);
  const r = await move(d, token, "BTC", "62000", secret);
  assert.is(r.status, 200, JSON.stringify(r.body));
  assert.is(d.daemon.sim!.mark("BTC"), "62000");
  assert.is((await move(d, token, "BTC", "1", secret)).status, 400, "the operator is bounded too");
});

op("the token is written once and kept across a restart", async (ctx) => {
  const before = readFileSync(tokenFile(ctx.d), "utf8");
  await ctx.d.close();
  ctx.d = await operatorDaemon(ctx.dir.path, ctx.d.clock);
  assert.is(readFileSync(tokenFile(ctx.d), "utf8"), before);
  assert.is((await move(ctx.d, await stranger(ctx.d), "BTC", "61000", before.trim())).status, 200);
});

op.run();

// ---- off ----

const off = suite<{ d: TestDaemon }>("--sim-controls off");
off.before(async (ctx) => {
  ctx.d = await startTestDaemon({ startOracle: false, config: { simControls: "off" } });
});
off.after(async (ctx) => ctx.d?.close());

off("no price or adl route (404, not in the OpenAPI document); the faucet and the sim's own loopback control stay", async ({ d }) => {
  assert.equal((await d.http.get("/healthz")).body.data.sim, { controls: "off" });
  const token = await stranger(d);
  const r = await move(d, token, "BTC", "61000");
  assert.is(r.status, 404);
  assert.is(r.body.error.code, "NOT_FOUND");
  const doc = (await d.http.get("/api/openapi.json")).body;
  assert.not.ok(doc.paths["/api/sim/price"]);
  assert.not.ok(doc.paths["/api/sim/adl"]);
  assert.is((await d.http.post("/api/sim/adl", { symbol: "BTC" }, { token })).status, 404);
  assert.ok(doc.paths["/api/sim/faucet"]);
  assert.is((await d.http.post("/api/sim/faucet", { amount: "10" }, { token })).status, 200);
  const local = await fetch(`${d.daemon.sim!.url}/sim/price`, {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ symbol: "BTC", price: "1" }),
  });
  assert.is(local.status, 200, "the machine's own users keep the unbounded loopback control");
});

off.run();
