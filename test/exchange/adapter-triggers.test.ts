// The Hyperliquid adapter's trigger (TP/SL) orders over HTTP against the sim: the order request's
// `trigger` goes out as the venue's trigger wire, and open orders and order status come back with
// `trigger: {price, kind, market, triggered}`.
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { isAppError } from "../../daemon/errors.js";
import type { OrderRequest } from "../../daemon/exchange/types.js";
import { newCloid } from "../../daemon/trading/trading-service.js";
import { adapterWithAgent, type AdapterRig } from "./_adapter.js";

const t = suite<AdapterRig>("adapter trigger orders");
t.before(async (ctx) => {
  Object.assign(ctx, await adapterWithAgent(120_000));
});
t.after(async (ctx) => {
  await ctx.h.close();
});

const order = (o: Partial<OrderRequest>): OrderRequest => ({
  asset: 0, isBuy: false, price: "53100", size: "0.01", reduceOnly: true, tif: "Ioc", cloid: newCloid(), ...o,
});

t("a trigger order goes out as the venue's trigger wire, rests, shows its trigger, and cancels", async ({ h, ex, master, agent }) => {
  h.sim.setPrice("BTC", "60000");
  const entry = await ex.placeOrder(agent, order({ isBuy: true, price: "60100", reduceOnly: false }));
  assert.is(entry.kind, "filled");
  const slCloid = newCloid();
  const sl = await ex.placeOrder(agent, order({ cloid: slCloid, trigger: { price: "59000", kind: "sl", market: true } }));
  assert.is(sl.kind, "resting");
  const sent = h.sim.requests.filter((r) => (r.body as any)?.action?.type === "order").at(-1)!.body as any;
  assert.equal(sent.action.orders[0].t, { trigger: { isMarket: true, triggerPx: "59000", tpsl: "sl" } });
  const tp = await ex.placeOrder(agent, order({ price: "61900", trigger: { price: "62000", kind: "tp", market: false } }));
  const plain = await ex.placeOrder(agent, order({ isBuy: true, price: "50000", reduceOnly: false, tif: "Gtc" }));

  const open = await ex.openOrders(master.address);
  const byOid = new Map(open.map((o) => [o.oid, o]));
  assert.equal(byOid.get(sl.oid)!.trigger, { price: "59000", kind: "sl", market: true, triggered: false });
  assert.equal(byOid.get(tp.oid)!.trigger, { price: "62000", kind: "tp", market: false, triggered: false });
  assert.is(byOid.get(plain.oid)!.trigger, null);
  assert.is(byOid.get(sl.oid)!.cloid, slCloid);
  assert.is(byOid.get(sl.oid)!.reduceOnly, true);

  const looked = await ex.orderStatus(master.address, slCloid);
  assert.ok(looked.found && looked.status === "open");
  assert.equal(looked.found && looked.order.trigger, { price: "59000", kind: "sl", market: true, triggered: false });

  await ex.cancelOrder(agent, { asset: 0, oid: tp.oid });
  await ex.cancelOrder(agent, { asset: 0, oid: plain.oid });
  assert.equal((await ex.openOrders(master.address)).map((o) => o.oid), [sl.oid]);

  h.sim.setPrice("BTC", "58900");
  const fired = await ex.orderStatus(master.address, sl.oid);
  assert.ok(fired.found && fired.status === "filled");
  assert.equal((await ex.accountState(master.address)).positions, []);
});

t("a fired limit trigger resting on the book reads as triggered", async ({ h, ex, master, agent }) => {
  h.sim.setPrice("BTC", "60000");
  await ex.placeOrder(agent, order({ isBuy: true, price: "60100", reduceOnly: false }));
  const sl = await ex.placeOrder(agent, order({ price: "59500", trigger: { price: "59000", kind: "sl", market: false } }));
  h.sim.setPrice("BTC", "58900");
  const [o] = await ex.openOrders(master.address);
  assert.is(o!.oid, sl.oid);
  assert.equal(o!.trigger, { price: "59000", kind: "sl", market: false, triggered: true });
  assert.is(o!.limitPrice, "59500");
  await ex.cancelOrder(agent, { asset: 0, oid: sl.oid });
});

t("an entry with its TP/SLs as one normalTpsl action: the children wait for its fill, then are open orders", async ({ h, ex, master, agent }) => {
  h.sim.setPrice("BTC", "60000");
  const sl = order({ price: "52200", trigger: { price: "58000", kind: "sl", market: true } });
  const tp = order({ price: "54900", trigger: { price: "61000", kind: "tp", market: true } });
  const placed = await ex.placeWithTpsl(agent, order({ isBuy: true, price: "59000", reduceOnly: false, tif: "Gtc" }), [sl, tp]);
  assert.is(placed.entry.kind, "resting");
  assert.equal(placed.children, [{ kind: "waitingForFill" }, { kind: "waitingForFill" }]);
  const [entry] = await ex.openOrders(master.address);
  assert.is(entry!.oid, placed.entry.oid);
  assert.equal(entry!.children.map((c) => c.trigger), [
    { price: "58000", kind: "sl", market: true, triggered: false }, { price: "61000", kind: "tp", market: true, triggered: false },
  ]);
  h.sim.setPrice("BTC", "58900"); // the entry fills
  const open = await ex.openOrders(master.address);
  assert.equal(open.map((o) => [o.trigger?.kind, o.children.length]).sort(), [["sl", 0], ["tp", 0]]);
  for (const o of open) await ex.cancelOrder(agent, { asset: 0, oid: o.oid });
  await ex.placeOrder(agent, order({ price: "58000" })); // flat again
});

t("normalTpsl: an entry that fills at once leaves its children waitingForTrigger; a refused child leaves the entry standing", async ({ h, ex, master, agent }) => {
  h.sim.setPrice("BTC", "60000");
  const sl = () => order({ price: "53100", trigger: { price: "59000", kind: "sl", market: true } });
  const now = await ex.placeWithTpsl(agent, order({ isBuy: true, price: "60100", reduceOnly: false }), [sl()]);
  assert.is(now.entry.kind, "filled");
  assert.equal(now.children, [{ kind: "waitingForTrigger" }]);

  const bad = { ...sl(), trigger: { price: "58000.55", kind: "sl" as const, market: true } };
  const mixed = await ex.placeWithTpsl(agent, order({ isBuy: true, price: "50000", reduceOnly: false, tif: "Gtc" }), [bad]);
  assert.is(mixed.entry.kind, "resting");
  assert.is(mixed.children[0]!.kind, "rejected");
  assert.match((mixed.children[0] as { reason: string }).reason, /tick size/);
  assert.ok((await ex.openOrders(master.address)).some((o) => o.oid === mixed.entry.oid));

  const refused = await ex.placeWithTpsl(agent, order({ isBuy: true, price: "50000", size: "0.000001", reduceOnly: false, tif: "Gtc" }), [sl()])
    .then(() => "placed", (e) => (isAppError(e) ? e.code : String(e)));
  assert.is(refused, "ORDER_REJECTED");
});

t.run();
