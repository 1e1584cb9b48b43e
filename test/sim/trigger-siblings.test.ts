// A TP/SL pair loses its other half the moment one of them fills, whichever was placed first: the
// mark moves once, over HTTP (POST /sim/price), and nothing else happens before the assertions.
// BTC mark 60000, book half-spread 1 bp: a long opened at market pays the best ask, 60006.
import { Wallet } from "ethers";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { fundedWallet, postJson, startSim, statusesOf, type SimHarness } from "./_support.js";

let h: SimHarness;
test.before(async () => {
  h = await startSim();
});
test.after(async () => {
  await h.close();
});
test.before.each(async () => {
  await movePrice("60000");
});

const BTC = 0;
type Tpsl = "tp" | "sl";
const ORDERS: Tpsl[][] = [["tp", "sl"], ["sl", "tp"]]; // CCXT sends the take-profit first
const user = (w: Wallet) => w.address.toLowerCase() as `0x${string}`;

/** A sell market trigger closing a long: take-profit at 61000, stop at 59000, each bounded 10 % past its trigger. */
function exit(tpsl: Tpsl, s: string) {
  const [triggerPx, p] = tpsl === "tp" ? ["61000", "54900"] : ["59000", "53100"];
  return { a: BTC, b: false, p, s, r: true, t: { trigger: { isMarket: true, triggerPx, tpsl } } };
}
const entry = (p: string, tif: "Gtc" | "Ioc") => ({ a: BTC, b: true, p, s: "0.01", r: false, t: { limit: { tif } } });

async function movePrice(price: string): Promise<void> {
  const res = await postJson(h.sim.url, "/sim/price", { symbol: "BTC", price });
  assert.is(res.status, 200, res.text);
}
async function szi(w: Wallet): Promise<string> {
  const state = await h.info.clearinghouseState({ user: user(w) });
  return state.assetPositions.find((p) => p.position.coin === "BTC")?.position.szi ?? "0";
}
async function status(w: Wallet, oid: number): Promise<string> {
  const s: any = await h.info.orderStatus({ user: user(w), oid });
  return s.order.status;
}

/** A long of 0.01 BTC with a positionTpsl pair placed in `order`; the oids by kind. */
async function longWithPair(order: Tpsl[], s = "0"): Promise<{ w: Wallet; oid: Record<Tpsl, number> }> {
  const w = await fundedWallet(h.sim);
  const [bought] = await statusesOf(h.exchange(w).order({ orders: [entry("60100", "Ioc")], grouping: "na" }));
  assert.ok(bought.filled, JSON.stringify(bought));
  const statuses = await statusesOf(h.exchange(w).order({ orders: order.map((k) => exit(k, s)), grouping: "positionTpsl" }));
  const oid = Object.fromEntries(order.map((k, i) => [k, statuses[i].resting?.oid])) as Record<Tpsl, number>;
  assert.ok(oid.tp && oid.sl, JSON.stringify(statuses));
  return { w, oid };
}

/** After one mark move: `fired` filled and flattened the long, `other` is canceled as its sibling everywhere. */
async function assertSiblingGone(w: Wallet, fired: number, other: number): Promise<void> {
  assert.is(await szi(w), "0");
  assert.is(await status(w, fired), "filled");
  assert.is(await status(w, other), "siblingFilledCanceled");
  assert.equal(await h.info.frontendOpenOrders({ user: user(w) }), []);
  assert.equal(await h.info.openOrders({ user: user(w) }), []);
  const history = await h.info.historicalOrders({ user: user(w) });
  assert.is(history.find((o) => o.order.oid === other)?.status, "siblingFilledCanceled");
}

for (const order of ORDERS) {
  test(`positionTpsl placed ${order.join(" then ")}: the stop that flattens the long cancels the take-profit at once`, async () => {
    const { w, oid } = await longWithPair(order);
    await movePrice("58900");
    await assertSiblingGone(w, oid.sl, oid.tp);
  });

  test(`positionTpsl placed ${order.join(" then ")}: the take-profit that flattens the long cancels the stop at once`, async () => {
    const { w, oid } = await longWithPair(order);
    await movePrice("61200");
    await assertSiblingGone(w, oid.tp, oid.sl);
  });
}

test("a fixed-size position stop that leaves part of the position open keeps its take-profit", async () => {
  const { w, oid } = await longWithPair(["tp", "sl"], "0.004");
  await movePrice("58900");
  assert.is(await szi(w), "0.006");
  assert.is(await status(w, oid.sl), "filled");
  assert.is(await status(w, oid.tp), "open");
});

test("a position closed by a plain order takes its position TP/SLs as reduceOnlyCanceled, not as siblings", async () => {
  const { w, oid } = await longWithPair(["tp", "sl"]);
  const sell = { a: BTC, b: false, p: "59900", s: "0.01", r: true, t: { limit: { tif: "Ioc" as const } } };
  await statusesOf(h.exchange(w).order({ orders: [sell], grouping: "na" }));
  assert.is(await szi(w), "0");
  assert.equal([await status(w, oid.tp), await status(w, oid.sl)], ["reduceOnlyCanceled", "reduceOnlyCanceled"]);
});

test("normalTpsl with the take-profit first: the stop's fill cancels the take-profit at once", async () => {
  const w = await fundedWallet(h.sim);
  const statuses = await statusesOf(h.exchange(w).order({
    orders: [entry("60100", "Ioc"), exit("tp", "0.01"), exit("sl", "0.01")], grouping: "normalTpsl",
  }));
  assert.equal(statuses.slice(1), ["waitingForTrigger", "waitingForTrigger"]);
  const open = await h.info.frontendOpenOrders({ user: user(w) });
  const oidOf = (type: string) => open.find((o) => o.orderType === type)!.oid;
  const [tp, sl] = [oidOf("Take Profit Market"), oidOf("Stop Market")];
  assert.ok(tp < sl, "the take-profit comes first in the settling pass");
  await movePrice("58900");
  await assertSiblingGone(w, sl, tp);
});

test.run();
