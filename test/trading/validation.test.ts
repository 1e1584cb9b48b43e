// Bad trade input of every kind gets 400 INVALID_INPUT with the field named, and writes nothing.
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { randomWallet, signIn, startTestDaemon, trader, type TestDaemon } from "../helpers/daemon.js";
import { sql } from "kysely";
import { rows } from "../helpers/stores.js";

const t = suite<{ d: TestDaemon; token: string }>("trade validation");
t.before(async (ctx) => {
  ctx.d = await startTestDaemon();
  ctx.token = (await trader(ctx.d)).token;
});
t.after(async (ctx) => {
  await ctx.d.close();
});

const count = async (d: TestDaemon) => (await rows(d.daemon.store, sql<{ n: number }>`select count(*) as n from orders`))[0]!.n;
const good = { symbol: "BTC", side: "buy", size: 0.01, price: 50000 };
/** 10^399: one significant figure, so the venue's precision rules alone would take it as a price. */
const HUGE = `1${"0".repeat(399)}`;

const cases: Array<[string, Record<string, unknown>, string]> = [
  ["size as text that is not a number", { ...good, size: "lots" }, "body.size"],
  ["size of the wrong type", { ...good, size: true }, "body.size"],
  ["negative size", { ...good, size: -1 }, "body.size"],
  ["zero size", { ...good, size: 0 }, "body.size"],
  ["too many size decimals (BTC has 5)", { ...good, size: 0.000001 }, "body.size"],
  ["size in exponent notation below the lot", { ...good, size: 1e-7 }, "body.size"],
  ["price with 6 significant figures", { ...good, price: 50000.5 }, "body.price"],
  ["negative price", { ...good, price: -5 }, "body.price"],
  ["unknown symbol", { ...good, symbol: "DOGE2" }, "body.symbol"],
  ["bad side", { ...good, side: "long" }, "body.side"],
  ["bad tif", { ...good, tif: "FOK" }, "body.tif"],
  ["lower-case tif", { ...good, tif: "gtc" }, "body.tif"],
  ["market order with GTC", { symbol: "BTC", side: "buy", size: 0.01, tif: "GTC" }, "body.tif"],
  ["below the 10 USDC minimum", { ...good, size: 0.0001 }, "body.size"],
  ["reduceOnly not a boolean", { ...good, reduceOnly: "yes" }, "body.reduceOnly"],
  ["malformed vault address", { ...good, vaultAddress: "0x12" }, "body.vaultAddress"],
  ["unknown field", { ...good, leverage: 50 }, "body"],
  ["missing side", { symbol: "BTC", size: 0.01, price: 50000 }, "body.side"],
  ["size as a number-looking string with exponent", { ...good, size: "1e-2" }, "body.size"],
  ["a size of 400 digits", { ...good, size: HUGE }, "body.size"],
  ["a price of 400 digits", { ...good, side: "sell", price: HUGE }, "body.price"],
  ["a take-profit of 400 digits", { symbol: "ETH", side: "buy", size: 0.02, takeProfit: { price: HUGE } }, "body.takeProfit.price"],
  ["a trigger price of 400 digits", { symbol: "BTC", side: "sell", size: 0.01, trigger: { price: HUGE, kind: "tp" } }, "body.trigger.price"],
];

for (const [name, body, field] of cases) {
  t(`${name}: 400 INVALID_INPUT at ${field}, nothing written`, async ({ d, token }) => {
    const before = await count(d);
    const r = await d.http.post("/api/trade", body, { token });
    assert.is(r.status, 400, JSON.stringify(r.body));
    assert.is(r.body.error.code, "INVALID_INPUT");
    assert.ok(r.body.error.details.some((x: { field: string }) => x.field === field), JSON.stringify(r.body.error));
    assert.is(await count(d), before);
  });
}

t("exact decimals survive: a decimal string size and price are used as given", async ({ d, token }) => {
  const r = await d.http.post("/api/trade", { symbol: "ETH", side: "buy", size: "0.0123", price: "2000.5" }, { token });
  assert.is(r.status, 200, JSON.stringify(r.body));
  const [row] = await rows(d.daemon.store, sql`select size, price from orders where oid = ${r.body.data.orderId}`);
  assert.equal(row, { size: "0.0123", price: "2000.5" });
});

t("trading needs a session (401) and an approved agent (409 AGENT_NOT_APPROVED)", async ({ d }) => {
  assert.is((await d.http.post("/api/trade", good)).status, 401);
  const { token } = await signIn(d.http, randomWallet());
  const before = await count(d);
  const r = await d.http.post("/api/trade", good, { token });
  assert.is(r.status, 409);
  assert.is(r.body.error.code, "AGENT_NOT_APPROVED");
  assert.is(await count(d), before);
});

t("a vault address the caller has no vault for is 404 and writes nothing", async ({ d, token }) => {
  const before = await count(d);
  const r = await d.http.post("/api/trade", { ...good, vaultAddress: randomWallet().address }, { token });
  assert.is(r.status, 404);
  assert.is(await count(d), before);
});

t.run();
