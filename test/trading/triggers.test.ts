// Stop-loss and take-profit orders through POST /api/trade: reduce-only by default,
// listed by GET /api/orders with their trigger, fired by the sim when the mark crosses, canceled like
// any order; a market trigger takes no price, a limit trigger needs one.
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { startTestDaemon, trader, type TestDaemon } from "../helpers/daemon.js";
import { waitUntil } from "../helpers/util.js";

const t = suite<{ d: TestDaemon; token: string }>("trigger orders");
t.before(async (ctx) => {
  ctx.d = await startTestDaemon();
  ctx.token = (await trader(ctx.d)).token;
});
t.after(async (ctx) => {
  await ctx.d.close();
});

const position = async (d: TestDaemon, token: string, symbol: string) =>
  ((await d.http.get("/api/positions", { token })).body.data.positions as Array<{ symbol: string; size: number }>).find((p) => p.symbol === symbol);
const orders = async (d: TestDaemon, token: string) => (await d.http.get("/api/orders", { token })).body.data.orders as Array<Record<string, any>>;

t("a stop-loss on a long rests with its trigger, and leaves the account flat once the mark falls through it", async ({ d, token }) => {
  d.daemon.sim!.setPrice("BTC", "60000");
  assert.is((await d.http.post("/api/trade", { symbol: "BTC", side: "buy", size: 0.1 }, { token })).status, 200);
  const stop = await d.http.post("/api/trade", { symbol: "BTC", side: "sell", size: 0.1, trigger: { price: 57000, kind: "sl" } }, { token });
  assert.is(stop.status, 200, JSON.stringify(stop.body));
  const listed = (await orders(d, token)).find((o) => o.orderId === stop.body.data.orderId);
  assert.equal(listed, {
    orderId: stop.body.data.orderId, symbol: "BTC", side: "sell", size: 0.1, price: listed!.price, status: "resting",
    trigger: { price: 57000, kind: "sl", market: true, triggered: false },
  });
  assert.ok(listed!.price < 57000, `a market trigger's wire price is the slippage bound below the trigger (${listed!.price})`);

  d.daemon.sim!.setPrice("BTC", "58000");
  assert.is((await position(d, token, "BTC"))?.size, 0.1, "above the stop: still long");
  d.daemon.sim!.setPrice("BTC", "56900");
  await waitUntil(async () => (await position(d, token, "BTC")) === undefined, { what: "the stop fired and closed the long" });
  assert.not.ok((await orders(d, token)).some((o) => o.orderId === stop.body.data.orderId));
});

t("a take-profit limit trigger shows market false and is canceled like any order, never filling", async ({ d, token }) => {
  d.daemon.sim!.setPrice("ETH", "3000");
  assert.is((await d.http.post("/api/trade", { symbol: "ETH", side: "buy", size: 1 }, { token })).status, 200);
  const tp = await d.http.post("/api/trade", { symbol: "ETH", side: "sell", size: 1, price: 3290, trigger: { price: 3300, kind: "tp", market: false } }, { token });
  assert.is(tp.status, 200, JSON.stringify(tp.body));
  const listed = (await orders(d, token)).find((o) => o.orderId === tp.body.data.orderId);
  assert.equal([listed?.price, listed?.trigger], [3290, { price: 3300, kind: "tp", market: false, triggered: false }]);
  assert.is((await d.http.del(`/api/orders/${tp.body.data.orderId}`, { token })).status, 200);
  d.daemon.sim!.setPrice("ETH", "3400");
  assert.is((await position(d, token, "ETH"))?.size, 1, "the canceled take-profit never fired");
});

t("a trigger's bad input is 400 naming the field; it is reduce-only unless told otherwise", async ({ d, token }) => {
  const refused = async (body: Record<string, unknown>, field: string) => {
    const r = await d.http.post("/api/trade", { symbol: "BTC", side: "sell", size: 0.1, ...body }, { token });
    assert.is(r.status, 400, JSON.stringify(r.body));
    assert.is(r.body.error.code, "INVALID_INPUT");
    assert.ok(r.body.error.details.some((x: { field: string }) => x.field === field), `${field} in ${JSON.stringify(r.body.error.details)}`);
  };
  await refused({ price: 50000, trigger: { price: 55000, kind: "sl" } }, "body.price");
  await refused({ trigger: { price: 55000, kind: "sl", market: false } }, "body.price");
  await refused({ tif: "GTC", trigger: { price: 55000, kind: "sl" } }, "body.tif");
  await refused({ trigger: { price: 55000, kind: "stop" } }, "body.trigger.kind");
  await refused({ trigger: { price: -1, kind: "sl" } }, "body.trigger.price");
  // Flat in SOL: a reduce-only stop has nothing to reduce, and the venue refuses it.
  const flat = await d.http.post("/api/trade", { symbol: "SOL", side: "sell", size: 1, trigger: { price: 100, kind: "sl" } }, { token });
  assert.is(flat.status, 422, JSON.stringify(flat.body));
});

t("an entry carries its stop and target: they wait for its fill, and go with it when it is canceled", async ({ d, token }) => {
  d.daemon.sim!.setPrice("SOL", "150");
  const body = { symbol: "SOL", side: "buy", size: 1, price: 140, stopLoss: { price: 130 }, takeProfit: { price: 170 } };
  const entry = await d.http.post("/api/trade", body, { token, headers: { "Idempotency-Key": "entry-with-protection" } });
  assert.is(entry.status, 200, JSON.stringify(entry.body));
  const waiting = [{ kind: "sl", price: 130, status: "waitingForFill" }, { kind: "tp", price: 170, status: "waitingForFill" }];
  assert.equal(entry.body.data.protection, waiting);
  // A retry with the key answers the same, from the entry's row.
  const again = await d.http.post("/api/trade", body, { token, headers: { "Idempotency-Key": "entry-with-protection" } });
  assert.equal(again.body.data, entry.body.data);

  const listed = (await orders(d, token)).filter((o) => o.symbol === "SOL");
  assert.equal(listed.map((o) => [o.orderId, o.protection]), [[entry.body.data.orderId, waiting]], "the children are no orders of their own yet");
  assert.is((await d.http.del(`/api/orders/${entry.body.data.orderId}`, { token })).status, 200);
  assert.equal((await orders(d, token)).filter((o) => o.symbol === "SOL"), [], "the canceled entry took its children");
});

t("a market entry's stop is armed at once and closes the position when the mark falls through it", async ({ d, token }) => {
  d.daemon.sim!.setPrice("SOL", "150");
  assert.is(await position(d, token, "SOL"), undefined);
  const entry = await d.http.post("/api/trade", { symbol: "SOL", side: "sell", size: 1, stopLoss: { price: 160 } }, { token });
  assert.is(entry.status, 200, JSON.stringify(entry.body));
  assert.ok(entry.body.data.fill, "the market entry filled");
  assert.equal(entry.body.data.protection.map((p: { kind: string; status: string }) => [p.kind, p.status]), [["sl", "waitingForTrigger"]]);
  assert.is((await position(d, token, "SOL"))?.size, -1);
  const stop = (await orders(d, token)).find((o) => o.symbol === "SOL" && o.trigger);
  assert.equal([stop?.side, stop?.size, stop?.trigger], ["buy", 1, { price: 160, kind: "sl", market: true, triggered: false }]);
  d.daemon.sim!.setPrice("SOL", "161");
  await waitUntil(async () => (await position(d, token, "SOL")) === undefined, { what: "the short's stop bought it back" });
});

t("an entry's protection on the wrong side of its price, on a reduce-only order or on a trigger is 400 naming the field", async ({ d, token }) => {
  d.daemon.sim!.setPrice("BTC", "60000");
  const refused = async (body: Record<string, unknown>, field: string) => {
    const r = await d.http.post("/api/trade", { symbol: "BTC", side: "buy", size: 0.001, ...body }, { token });
    assert.is(r.status, 400, JSON.stringify(r.body));
    assert.ok(r.body.error.details.some((x: { field: string }) => x.field === field), `${field} in ${JSON.stringify(r.body.error.details)}`);
  };
  await refused({ price: 59000, stopLoss: { price: 59500 } }, "body.stopLoss.price");
  await refused({ takeProfit: { price: 59000 } }, "body.takeProfit.price");
  await refused({ side: "sell", price: 61000, stopLoss: { price: 60000 } }, "body.stopLoss.price");
  await refused({ reduceOnly: true, stopLoss: { price: 50000 } }, "body.reduceOnly");
  await refused({ trigger: { price: 55000, kind: "sl" }, stopLoss: { price: 50000 } }, "body.trigger");
  await refused({ stopLoss: { price: 50000, kind: "sl" } }, "body.stopLoss");
});

t.run();
