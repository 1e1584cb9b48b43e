// Trading end to end through the daemon's HTTP API against the embedded sim, with two users.
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { startTestDaemon, trader, type TestDaemon } from "../helpers/daemon.js";
import { sql } from "kysely";
import { rows } from "../helpers/stores.js";

const t = suite<{ d: TestDaemon; alice: { token: string; address: string }; bob: { token: string; address: string } }>("orders");
t.before(async (ctx) => {
  ctx.d = await startTestDaemon();
  const a = await trader(ctx.d);
  const b = await trader(ctx.d);
  ctx.alice = { token: a.token, address: a.wallet.address };
  ctx.bob = { token: b.token, address: b.wallet.address };
});
t.after(async (ctx) => {
  await ctx.d.close();
});

const ordersTable = (d: TestDaemon) => rows(d.daemon.store, sql<any>`select * from orders order by id`);

t("a resting limit order: submitted, listed with SPEC's fields, logged before and after the call", async ({ d, alice }) => {
  const r = await d.http.post("/api/trade", { symbol: "BTC", side: "buy", size: 0.01, price: 50000, tif: "GTC" }, { token: alice.token });
  assert.is(r.status, 200, JSON.stringify(r.body));
  assert.equal(Object.keys(r.body.data).sort(), ["orderId", "status", "timestamp"]);
  assert.is(r.body.data.status, "submitted");
  assert.ok(Number.isInteger(r.body.data.orderId));
  // The daemon's clock is frozen (test/helpers/daemon.ts), so the order's time is exactly its reading,
  // however long the set-up took: milliseconds, from the daemon's clock, not the machine's.
  assert.is(r.body.data.timestamp, d.clock(), "the daemon's clock, in milliseconds");

  const list = await d.http.get("/api/orders", { token: alice.token });
  const mine = list.body.data.orders.find((o: any) => o.orderId === r.body.data.orderId);
  assert.equal(mine, { orderId: r.body.data.orderId, symbol: "BTC", side: "buy", size: 0.01, price: 50000, status: "resting" });

  const row = (await ordersTable(d)).find((o) => o.oid === r.body.data.orderId);
  assert.is(row.status, "resting");
  assert.is(row.user, alice.address);
  assert.match(row.cloid, /^0x[89a-f][0-9a-f]{31}$/);
  assert.is(row.size, "0.01");
  assert.is(row.price, "50000");
});

t("another user can neither see nor cancel it (404); the owner cancels, then 409 ORDER_NOT_OPEN", async ({ d, alice, bob }) => {
  const r = await d.http.post("/api/trade", { symbol: "ETH", side: "sell", size: 0.1, price: 3500 }, { token: alice.token });
  const id = r.body.data.orderId;
  const bobs = await d.http.get("/api/orders", { token: bob.token });
  assert.not.ok(bobs.body.data.orders.some((o: any) => o.orderId === id));
  assert.is((await d.http.get(`/api/orders/${id}`, { token: bob.token })).status, 404);
  const steal = await d.http.del(`/api/orders/${id}`, { token: bob.token });
  assert.is(steal.status, 404);
  assert.is(steal.body.error.code, "NOT_FOUND");

  const cancel = await d.http.del(`/api/orders/${id}`, { token: alice.token });
  assert.is(cancel.status, 200);
  assert.equal(cancel.body.data, { orderId: id, status: "canceled" });
  const again = await d.http.del(`/api/orders/${id}`, { token: alice.token });
  assert.is(again.status, 409);
  assert.is(again.body.error.code, "ORDER_NOT_OPEN");
  const detail = await d.http.get(`/api/orders/${id}`, { token: alice.token });
  assert.is(detail.body.data.order.status, "canceled");
  assert.is((await ordersTable(d)).find((o) => o.oid === id).status, "canceled");
});

t("a market order fills at once as IOC within the slippage bound; positions and close", async ({ d, alice }) => {
  const r = await d.http.post("/api/trade", { symbol: "ETH", side: "buy", size: 0.5 }, { token: alice.token });
  assert.is(r.status, 200, JSON.stringify(r.body));
  const row = (await ordersTable(d)).find((o) => o.oid === r.body.data.orderId);
  assert.is(row.tif, "Ioc");
  assert.is(row.market, 1);
  assert.is(row.status, "filled");
  assert.is(row.price, "3150", "mid 3000 plus 5%");
  // The answer says what filled, beside SPEC 2.5's keys, from the exchange's own answer (no float sums).
  assert.equal(Object.keys(r.body.data).sort(), ["fill", "orderId", "status", "timestamp"]);
  assert.equal(r.body.data.fill, { status: "filled", size: 0.5, averagePrice: Number(row.average_price) });
  assert.ok(r.body.data.fill.averagePrice > 3000 && r.body.data.fill.averagePrice <= 3150, String(r.body.data.fill.averagePrice));

  const detail = (await d.http.get(`/api/orders/${r.body.data.orderId}`, { token: alice.token })).body.data.order;
  assert.is(detail.status, "filled");
  assert.is(detail.fills.reduce((n: number, f: any) => n + f.size, 0), 0.5);

  let positions = (await d.http.get("/api/positions", { token: alice.token })).body.data.positions;
  const eth = positions.find((p: any) => p.symbol === "ETH");
  assert.is(eth.size, 0.5);
  for (const k of ["entryPrice", "markPrice", "unrealizedPnl"]) assert.type(eth[k], "number");
  assert.ok(eth.liquidationPrice === null || typeof eth.liquidationPrice === "number");

  const half = await d.http.post("/api/positions/close", { symbol: "ETH", size: 0.2 }, { token: alice.token });
  assert.is(half.status, 200, JSON.stringify(half.body));
  assert.is(half.body.data.status, "submitted");
  assert.is(half.body.data.fill.size, 0.2, "a close answers the same shape, with its fill");
  positions = (await d.http.get("/api/positions", { token: alice.token })).body.data.positions;
  assert.is(positions.find((p: any) => p.symbol === "ETH").size, 0.3);
  const closeRow = (await ordersTable(d)).find((o) => o.oid === half.body.data.orderId);
  assert.is(closeRow.reduce_only, 1);
  assert.is(closeRow.side, "sell");

  const rest = await d.http.post("/api/positions/close", { symbol: "ETH" }, { token: alice.token });
  assert.is(rest.status, 200);
  positions = (await d.http.get("/api/positions", { token: alice.token })).body.data.positions;
  assert.not.ok(positions.some((p: any) => p.symbol === "ETH"));
  const none = await d.http.post("/api/positions/close", { symbol: "ETH" }, { token: alice.token });
  assert.is(none.status, 409);
  assert.is(none.body.error.code, "NO_POSITION");
});

t("a short shows a negative size; closing more than the position is refused", async ({ d, bob }) => {
  assert.is((await d.http.post("/api/trade", { symbol: "SOL", side: "sell", size: 1 }, { token: bob.token })).status, 200);
  const sol = (await d.http.get("/api/positions", { token: bob.token })).body.data.positions.find((p: any) => p.symbol === "SOL");
  assert.is(sol.size, -1);
  const tooMuch = await d.http.post("/api/positions/close", { symbol: "SOL", size: 2 }, { token: bob.token });
  assert.is(tooMuch.status, 400);
  assert.is(tooMuch.body.error.details[0].field, "body.size");
});

t("closing with an Idempotency-Key: a retry replays the close; the key of another request is a conflict", async ({ d, bob }) => {
  assert.is((await d.http.post("/api/trade", { symbol: "ETH", side: "buy", size: 0.1 }, { token: bob.token })).status, 200);
  const headers = { "Idempotency-Key": "close-eth-1" };
  const first = await d.http.post("/api/positions/close", { symbol: "ETH" }, { token: bob.token, headers });
  assert.is(first.status, 200, JSON.stringify(first.body));
  const again = await d.http.post("/api/positions/close", { symbol: "ETH" }, { token: bob.token, headers });
  assert.is(again.status, 200, "the position is gone, but the retry replays the first close");
  assert.is(again.body.data.orderId, first.body.data.orderId);
  assert.equal(again.body.data.fill, first.body.data.fill, "the replay says what the first close filled");
  assert.is(first.body.data.fill.size, 0.1);
  const other = await d.http.post("/api/positions/close", { symbol: "SOL" }, { token: bob.token, headers });
  assert.is(other.status, 409);
  assert.is(other.body.error.code, "CONFLICT");
  const tradeKey = { "Idempotency-Key": "trade-then-close" };
  assert.is((await d.http.post("/api/trade", { symbol: "ETH", side: "buy", size: 0.1 }, { token: bob.token, headers: tradeKey })).status, 200);
  const misuse = await d.http.post("/api/positions/close", { symbol: "ETH" }, { token: bob.token, headers: tradeKey });
  assert.is(misuse.body.error?.code, "CONFLICT", "an order's key does not answer for a close");
});

t("an order beyond the margin gets 422 INSUFFICIENT_BALANCE and is logged as rejected", async ({ d, bob }) => {
  const r = await d.http.post("/api/trade", { symbol: "BTC", side: "buy", size: 100, price: 60000 }, { token: bob.token });
  assert.is(r.status, 422, JSON.stringify(r.body));
  assert.is(r.body.error.code, "INSUFFICIENT_BALANCE");
  const row = (await ordersTable(d)).at(-1);
  assert.is(row.status, "rejected");
  assert.is(row.error_code, "INSUFFICIENT_BALANCE");
});

t("ALO that would cross is rejected by the venue with its reason (422 ORDER_REJECTED)", async ({ d, bob }) => {
  const r = await d.http.post("/api/trade", { symbol: "BTC", side: "buy", size: 0.01, price: 70000, tif: "ALO" }, { token: bob.token });
  assert.is(r.status, 422);
  assert.is(r.body.error.code, "ORDER_REJECTED");
  assert.match(r.body.error.details.reason, /Post only/);
});

t("the account shows the exchange balance and the approved agent", async ({ d, alice }) => {
  const r = await d.http.get("/api/account", { token: alice.token });
  assert.is(r.body.data.exchange.kind, "sim");
  assert.is(r.body.data.exchange.available, true);
  assert.match(r.body.data.exchange.accountValue, /^\d+(\.\d+)?$/);
  assert.is(r.body.data.agent.approved, true);
  assert.ok(r.body.data.agent.validUntil > Date.now() / 1000 + 80 * 86400, "about 90 days, in seconds");
});

t("GET /api/prices: the exchange's mids as exact decimal strings, signed-in only", async ({ d, alice }) => {
  d.daemon.sim!.setPrice("SOL", "151.25");
  const r = await d.http.get("/api/prices", { token: alice.token });
  assert.is(r.status, 200, JSON.stringify(r.body));
  assert.is(Number(r.body.data.prices.SOL), 151.25);
  assert.type(r.body.data.prices.SOL, "string");
  assert.ok("BTC" in r.body.data.prices && "ETH" in r.body.data.prices);
  assert.is((await d.http.get("/api/prices")).status, 401);
});

t.run();
