// A JSON number in a request body reaches validation as the decimal text it was sent as, over real
// HTTP with raw bodies: never rounded to a double first (0.00999999999999999999 is not 0.01), checked
// as the same text sent as a string is, and an integer field takes a safe integer or answers 400.
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { Wallet, id } from "ethers";
import { party, startTestDaemon, trader, type Party, type Reply, type TestDaemon } from "../helpers/daemon.js";

interface Ctx {
  d: TestDaemon;
  al: { token: string; wallet: Party["wallet"] };
  tom: Party;
}
const t = suite<Ctx>("exact numbers");
t.before(async (ctx) => {
  ctx.d = await startTestDaemon({ startOracle: false });
  ctx.al = await trader(ctx.d);
  ctx.tom = await party(ctx.d);
});
t.after(async (ctx) => {
  await ctx.d.close();
});

/** POST with the body exactly as written (numbers and all). */
const raw = (ctx: Ctx, path: string, body: string, token = ctx.al.token) =>
  ctx.d.http.request("POST", path, undefined, { token, raw: body, headers: { "Content-Type": "application/json" } });

const trade = (fields: string) => `{"symbol":"BTC","side":"buy","tif":"GTC",${fields}}`;
const proposal = (ctx: Ctx, over: string) => {
  const deadline = Math.floor(ctx.d.clock() / 1000) + 86_400;
  return `{"investor":"${ctx.al.wallet.address}","trader":"${ctx.tom.address}","initialBalance":"1000","maxDrawdown":10,` +
    `"dailyDrawdown":5,"dealDeadline":${deadline},"profitShare":{"trader":20,"investor":80}${over}}`;
};
/** A signature that passes the route's check, so only the field under test is wrong. */
const SIG = Wallet.createRandom().signingKey.sign(id("anything")).serialized;
const orderCount = async (ctx: Ctx) => (await ctx.d.http.get("/api/orders", { token: ctx.al.token })).body.data.orders.length;

function sameRefusal(number: Reply, text: Reply, field: string) {
  assert.is(number.status, 400, JSON.stringify(number.body));
  assert.is(number.body.error.code, "INVALID_INPUT");
  assert.equal(number.body.error.details.map((x: { field: string }) => x.field), [field]);
  assert.equal(number.body.error, text.body.error, "the number is refused exactly as its text in a string");
}

t("a number is checked as the text it was sent as, with the same 400 as that text in a string", async (ctx) => {
  const before = await orderCount(ctx);
  sameRefusal(await raw(ctx, "/api/trade", trade(`"size":0.00999999999999999999,"price":30000`)),
    await raw(ctx, "/api/trade", trade(`"size":"0.00999999999999999999","price":30000`)), "body.size");
  sameRefusal(await raw(ctx, "/api/trade", trade(`"size":0.01,"price":29999.99999999999999`)),
    await raw(ctx, "/api/trade", trade(`"size":0.01,"price":"29999.99999999999999"`)), "body.price");
  sameRefusal(await raw(ctx, "/api/trade", trade(`"size":-0,"price":30000`)),
    await raw(ctx, "/api/trade", trade(`"size":"-0","price":30000`)), "body.size");
  assert.is(await orderCount(ctx), before, "nothing placed");
  sameRefusal(await raw(ctx, "/api/proposals", proposal(ctx, `,"maxDrawdown":9.99999999999999999`)),
    await raw(ctx, "/api/proposals", proposal(ctx, `,"maxDrawdown":"9.99999999999999999"`)), "body.maxDrawdown");
  // An exponent is read exactly too: 1e-7 is 0.0000001, seven decimals, one more than USDC has.
  sameRefusal(await raw(ctx, "/api/proposals", proposal(ctx, `,"initialBalance":1e-7`)),
    await raw(ctx, "/api/proposals", proposal(ctx, `,"initialBalance":"0.0000001"`)), "body.initialBalance");
  sameRefusal(await raw(ctx, "/api/trade", trade(`"size":1E-7,"price":30000`)),
    await raw(ctx, "/api/trade", trade(`"size":"0.0000001","price":30000`)), "body.size");
});

t("exact values are kept: 9007199254740993 stays itself, 1.5e3 is 1500, 0.01 and 3e4 place an order", async (ctx) => {
  const big = await raw(ctx, "/api/proposals", proposal(ctx, `,"initialBalance":9007199254740993`));
  assert.is(big.status, 200, JSON.stringify(big.body));
  assert.is(big.body.data.proposal.initialBalance, "9007199254740993");
  assert.is(big.body.data.proposal.typedData.message.initialBalance, "9007199254740993000000");
  const exp = await raw(ctx, "/api/proposals", proposal(ctx, `,"initialBalance":1.5e3,"maxDrawdown":12.50,"dailyDrawdown":5e0`));
  assert.is(exp.status, 200, JSON.stringify(exp.body));
  assert.is(exp.body.data.proposal.initialBalance, "1500");
  assert.is(exp.body.data.proposal.maxDrawdown, 12.5);
  const placed = await raw(ctx, "/api/trade", trade(`"size":1e-2,"price":3e4`));
  assert.is(placed.status, 200, JSON.stringify(placed.body));
  const plain = await raw(ctx, "/api/trade", trade(`"size":0.01,"price":30000`));
  assert.is(plain.status, 200, JSON.stringify(plain.body));
  for (const id of [placed.body.data.orderId, plain.body.data.orderId]) {
    const o = (await ctx.d.http.get(`/api/orders/${id}`, { token: ctx.al.token })).body.data.order;
    assert.equal([o.size, o.price], [0.01, 30000]);
  }
});

t("integer fields take a safe integer or answer 400 naming the field", async (ctx) => {
  const now = Math.floor(ctx.d.clock() / 1000);
  const refusedAt = (r: Reply, field: string, message: RegExp) => {
    assert.is(r.status, 400, JSON.stringify(r.body));
    assert.equal(r.body.error.details.map((x: { field: string }) => x.field), [field], JSON.stringify(r.body));
    assert.match(r.body.error.details[0].message, message);
  };
  for (const huge of ["9007199254740992", "9007199254740993", "1e400"]) {
    refusedAt(await raw(ctx, "/api/proposals", proposal(ctx, `,"dealDeadline":${huge}`)), "body.dealDeadline", /whole number within ±9007199254740991/);
  }
  refusedAt(await raw(ctx, "/api/proposals", proposal(ctx, `,"dealDeadline":${now + 86_400}.5`)), "body.dealDeadline", /whole number/);
  refusedAt(await raw(ctx, "/api/proposals", proposal(ctx, `,"dealDeadline":-0`)), "body.dealDeadline", /greater than 0|positive|>0/i);
  refusedAt(await raw(ctx, "/api/agent/approve", `{"nonce":9007199254740993,"signature":"${SIG}"}`), "body.nonce", /whole number/);
  const vaultish = ctx.tom.address;
  refusedAt(await raw(ctx, `/api/vaults/${vaultish}/fund`, `{"amount":"1","deadline":1e30,"signature":"${SIG}"}`),
    "body.deadline", /whole number/);
  refusedAt(await raw(ctx, "/api/trade", trade(`"size":1e99999,"price":30000`)), "body.size", /out of range/);
  // An integer written with an exponent or a zero fraction is still that integer.
  const deadline = now + 2 * 86_400;
  const written = await raw(ctx, "/api/proposals", proposal(ctx, `,"dealDeadline":${deadline / 100}e2,"validUntil":${now + 3600}.000`));
  assert.is(written.status, 200, JSON.stringify(written.body));
  assert.equal([written.body.data.proposal.dealDeadline, written.body.data.proposal.validUntil], [deadline, now + 3600]);
});

t("query and path integers: digits only, a safe integer", async (ctx) => {
  const get = (path: string) => ctx.d.http.get(path, { token: ctx.al.token });
  const cases: Array<[string, string]> = [
    ["/api/proposals?limit=9007199254740993", "query.limit"],
    ["/api/proposals?offset=1.0", "query.offset"],
    ["/api/proposals?offset=1e3", "query.offset"],
    ["/api/orders/9007199254740993", "params.orderId"],
    ["/api/proposals/1e0", "params.id"],
  ];
  for (const [path, field] of cases) {
    const r = await get(path);
    assert.is(r.status, 400, `${path}: ${JSON.stringify(r.body)}`);
    assert.equal(r.body.error.details.map((x: { field: string }) => x.field), [field], path);
  }
  const page = await get("/api/proposals?limit=1&offset=0");
  assert.is(page.status, 200);
  assert.is(page.body.data.proposals.length, 1);
});

t("a number where a string, boolean or object belongs is 400 saying number", async (ctx) => {
  const symbol = await raw(ctx, "/api/trade", `{"symbol":5,"side":"buy","size":0.01,"price":30000}`);
  assert.equal(symbol.body.error.details, [{ field: "body.symbol", message: "Invalid input: expected string, received number" }]);
  const flag = await raw(ctx, "/api/trade", trade(`"size":0.01,"price":30000,"reduceOnly":1`));
  assert.equal(flag.body.error.details, [{ field: "body.reduceOnly", message: "Invalid input: expected boolean, received number" }]);
  const share = await raw(ctx, "/api/proposals", proposal(ctx, `,"profitShare":5`));
  assert.equal(share.body.error.details, [{ field: "body.profitShare", message: "Invalid input: expected object, received number" }]);
  const notJson = await raw(ctx, "/api/trade", `{"symbol":"BTC","size":01}`);
  assert.is(notJson.status, 400);
  assert.match(notJson.body.error.message, /not valid JSON/);
});

t.run();
