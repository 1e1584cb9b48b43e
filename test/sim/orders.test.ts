// Order semantics against the synthetic book, driven over HTTP with the real SDK.
// BTC mark 60000, book half-spread 1 bp, 2 bp between levels, $50 000 per level:
//   asks 60006 (0.83325), 60018 (0.83308), ...   bids 59994, 59982, ...
import { ApiRequestError } from "@nktkas/hyperliquid";
import { Wallet } from "ethers";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { fixed } from "../../daemon/lib/decimal.js";
import { fundedWallet, postJson, randomCloid, startSim, statusesOf, type SimHarness } from "./_support.js";

let h: SimHarness;
test.before(async () => {
  h = await startSim();
});
test.after(async () => {
  await h.close();
});

type Tif = "Gtc" | "Ioc" | "Alo";
const BTC = 0;
const SOL = 2;

function order(a: number, b: boolean, p: string, s: string, tif: Tif, extra: { r?: boolean; c?: `0x${string}` } = {}) {
  return { a, b, p, s, r: extra.r ?? false, t: { limit: { tif } }, ...(extra.c ? { c: extra.c } : {}) };
}

async function place(w: Wallet, ...orders: ReturnType<typeof order>[]): Promise<any[]> {
  return statusesOf(h.exchange(w).order({ orders, grouping: "na" }));
}

const user = (w: Wallet) => w.address.toLowerCase() as `0x${string}`;

test.before.each(() => {
  h.sim.setPrice("BTC", "60000");
  h.sim.setPrice("SOL", "150");
});

test("GTC below the book rests and shows in openOrders, frontendOpenOrders and orderStatus", async () => {
  const w = await fundedWallet(h.sim);
  const c = randomCloid();
  const [st] = await place(w, order(BTC, true, "59000", "0.01", "Gtc", { c }));
  assert.ok(st.resting, JSON.stringify(st));
  assert.is(st.resting.cloid, c);
  assert.ok(st.resting.oid > 2 ** 32, "oids exceed 32 bits so clients hash them as uint64");
  const open = await h.info.openOrders({ user: user(w) });
  assert.equal(open, [{ coin: "BTC", side: "B", limitPx: "59000.0", sz: "0.01", oid: st.resting.oid, timestamp: open[0].timestamp, origSz: "0.01", cloid: c }]);
  const [fe] = await h.info.frontendOpenOrders({ user: user(w) });
  assert.is(fe.tif, "Gtc");
  assert.is(fe.orderType, "Limit");
  const byCloid: any = await h.info.orderStatus({ user: user(w), oid: c });
  assert.is(byCloid.order.status, "open");
  assert.is(byCloid.order.order.oid, st.resting.oid);
  const byOid: any = await h.info.orderStatus({ user: user(w), oid: st.resting.oid });
  assert.is(byOid.order.order.cloid, c);
  assert.equal(await h.info.orderStatus({ user: user(Wallet.createRandom() as any), oid: c }), { status: "unknownOid" });
});

test("a reused cloid is refused as such, even on an order that would also fail validation", async () => {
  const w = await fundedWallet(h.sim);
  const c = randomCloid();
  const [first] = await place(w, order(BTC, true, "59000", "0.01", "Gtc", { c }));
  assert.ok(first.resting, JSON.stringify(first));
  for (const [px, sz] of [["59000.5", "0.01"], ["59000", "0.00001"], ["59000", "0.0001"]]) {
    const [st] = await place(w, order(BTC, true, px!, sz!, "Gtc", { c }));
    assert.match(String(st.error), /^Duplicate cloid\./, `${px} x ${sz}: ${JSON.stringify(st)}`);
  }
});

test("GTC that crosses fills as taker at the book price and pays the taker fee", async () => {
  const w = await fundedWallet(h.sim);
  const [st] = await place(w, order(BTC, true, "60100", "0.5", "Gtc"));
  assert.equal(st, { filled: { totalSz: "0.5", avgPx: "60006.0", oid: st.filled.oid } });
  const [fill] = await h.info.userFills({ user: user(w) });
  // fee = 0.5 × 60006 × 0.00045 = 13.50135
  assert.equal(
    { px: fill.px, sz: fill.sz, side: fill.side, dir: fill.dir, crossed: fill.crossed, fee: fill.fee, closedPnl: fill.closedPnl, startPosition: fill.startPosition },
    { px: "60006.0", sz: "0.5", side: "B", dir: "Open Long", crossed: true, fee: "13.50135", closedPnl: "0.0", startPosition: "0.0" },
  );
  const state = await h.info.clearinghouseState({ user: user(w) });
  assert.is(state.assetPositions[0].position.szi, "0.5");
  assert.is(state.assetPositions[0].position.entryPx, "60006.0");
});

test("GTC larger than the levels it crosses fills partly and rests the remainder", async () => {
  const w = await fundedWallet(h.sim, 100_000);
  const [st] = await place(w, order(BTC, true, "60006", "1", "Gtc"));
  assert.ok(st.resting, JSON.stringify(st));
  const status: any = await h.info.orderStatus({ user: user(w), oid: st.resting.oid });
  assert.is(status.order.status, "open");
  assert.is(status.order.order.sz, "0.16675"); // 1 - 0.83325 taken at 60006
  assert.is(status.order.order.origSz, "1.0");
  const fills = await h.info.userFills({ user: user(w) });
  assert.equal(fills.map((f) => [f.px, f.sz]), [["60006.0", "0.83325"]]);
});

test("IOC walks the book up to its limit, fills partly and cancels the rest", async () => {
  const w = await fundedWallet(h.sim, 100_000);
  const c = randomCloid();
  const [st] = await place(w, order(BTC, true, "60018", "2", "Ioc", { c }));
  const F = fixed(18);
  const notional = F.mul(F.parse("0.83325"), F.parse("60006"), "down") + F.mul(F.parse("0.83308"), F.parse("60018"), "down");
  const avg = F.format(F.div(notional, F.parse("1.66633"), "half-up"), 6);
  assert.equal(st, { filled: { totalSz: "1.66633", avgPx: avg, oid: st.filled.oid, cloid: c } });
  assert.equal(await h.info.openOrders({ user: user(w) }), []);
  const status: any = await h.info.orderStatus({ user: user(w), oid: c });
  assert.is(status.order.status, "filled");
  assert.is((await h.info.userFills({ user: user(w) })).length, 2, "one fill per level");
});

test("IOC that cannot match anything is rejected with Hyperliquid's text", async () => {
  const w = await fundedWallet(h.sim);
  const c = randomCloid();
  const [st] = await place(w, order(BTC, true, "59000", "0.01", "Ioc", { c }));
  assert.equal(st, { error: "Order could not immediately match against any resting orders. asset=0" });
  const status: any = await h.info.orderStatus({ user: user(w), oid: c });
  assert.is(status.order.status, "iocCancelRejected");
});

test("ALO that would cross is rejected with the bbo; one that does not cross rests", async () => {
  const w = await fundedWallet(h.sim);
  const [bad, good] = await place(w, order(BTC, true, "60006", "0.01", "Alo"), order(BTC, false, "60006", "0.01", "Alo"));
  assert.equal(bad, { error: "Post only order would have immediately matched, bbo was 59994@60006. asset=0" });
  assert.ok(good.resting);
  try {
    await h.exchange(w).order({ orders: [order(BTC, false, "59994", "0.01", "Alo")], grouping: "na" });
    assert.unreachable();
  } catch (e) {
    assert.instance(e, ApiRequestError);
    assert.match((e as Error).message, /^Order 0: Post only order would have immediately matched/);
  }
});

test("precision and minimum value are checked per order", async () => {
  const w = await fundedWallet(h.sim);
  const st = await place(
    w,
    order(BTC, true, "59000.5", "0.01", "Gtc"), // 6 significant figures
    order(SOL, true, "140.123", "1", "Gtc"), // SOL allows 4 decimals but only 5 significant figures
    order(BTC, true, "59000", "0.000001", "Gtc"), // BTC sizes have 5 decimals
    order(BTC, true, "59000", "0.0001", "Gtc"), // 5.90 USD
    order(SOL, true, "140.12", "1", "Gtc"),
    order(BTC, true, "123456", "0.001", "Gtc"), // integer prices are always allowed
  );
  assert.equal(st.slice(0, 4), [
    { error: "Price must be divisible by tick size. asset=0" },
    { error: "Price must be divisible by tick size. asset=2" },
    { error: "Order has invalid size. asset=0" },
    { error: "Order must have minimum value of $10. asset=0" },
  ]);
  assert.ok(st[4].resting);
  assert.ok(st[5].filled, "a buy far above the book fills as taker");
});

test("orders beyond the available margin are rejected", async () => {
  const w = await fundedWallet(h.sim, 100);
  // 0.1 BTC at 60 000 = 6 000 notional, 300 margin at 20x: too much for 100 USDC.
  const [tooBig] = await place(w, order(BTC, true, "60000", "0.1", "Gtc"));
  assert.equal(tooBig, { error: "Insufficient margin to place order. asset=0" });
  // 0.03 BTC: 1 800 notional, 90 margin + 0.81 fee <= 100; then a resting order reserves margin.
  const [ok] = await place(w, order(BTC, true, "60000", "0.03", "Gtc"));
  assert.ok(ok.resting);
  const [second] = await place(w, order(BTC, true, "59000", "0.01", "Gtc"));
  assert.equal(second, { error: "Insufficient margin to place order. asset=0" });
});

test("reduce-only never opens, grows or flips a position", async () => {
  const w = await fundedWallet(h.sim, 100_000);
  const [none] = await place(w, order(BTC, false, "59000", "0.1", "Ioc", { r: true }));
  assert.equal(none, { error: "Reduce only order would increase position. asset=0" });
  await place(w, order(BTC, true, "60100", "0.5", "Ioc"));
  const [grow] = await place(w, order(BTC, true, "60100", "0.1", "Ioc", { r: true }));
  assert.equal(grow, { error: "Reduce only order would increase position. asset=0" });
  const [close] = await place(w, order(BTC, false, "59000", "1", "Ioc", { r: true }));
  assert.is(close.filled.totalSz, "0.5", "capped at the position");
  const state = await h.info.clearinghouseState({ user: user(w) });
  assert.equal(state.assetPositions, []);
});

test("a batch answers one status per order; the SDK throws but keeps the siblings", async () => {
  const w = await fundedWallet(h.sim);
  try {
    await h.exchange(w).order({ orders: [order(BTC, true, "59000", "0.01", "Gtc"), order(BTC, true, "59000", "0.0001", "Gtc")], grouping: "na" });
    assert.unreachable();
  } catch (e: any) {
    assert.is(e.message, "Order 1: Order must have minimum value of $10. asset=0");
    assert.ok(e.response.response.data.statuses[0].resting);
  }
});

test("cancel by oid and by cloid; a second cancel or another user's order is an error", async () => {
  const w = await fundedWallet(h.sim);
  const other = await fundedWallet(h.sim);
  const c = randomCloid();
  const [a, b] = await place(w, order(BTC, true, "59000", "0.01", "Gtc"), order(BTC, true, "58000", "0.01", "Gtc", { c }));
  const theirs = await statusesOf(h.exchange(other).cancel({ cancels: [{ a: BTC, o: a.resting.oid }] }));
  assert.equal(theirs, [{ error: "Order was never placed, already canceled, or filled. asset=0" }]);
  assert.equal(await statusesOf(h.exchange(w).cancel({ cancels: [{ a: BTC, o: a.resting.oid }] })), ["success"]);
  assert.equal(await statusesOf(h.exchange(w).cancel({ cancels: [{ a: BTC, o: a.resting.oid }] })), [
    { error: "Order was never placed, already canceled, or filled. asset=0" },
  ]);
  assert.equal(await statusesOf(h.exchange(w).cancelByCloid({ cancels: [{ asset: BTC, cloid: c }] })), ["success"]);
  const status: any = await h.info.orderStatus({ user: user(w), oid: b.resting.oid });
  assert.is(status.order.status, "canceled");
  assert.equal(await h.info.openOrders({ user: user(w) }), []);
});

test("resting orders fill as makers when /sim/price crosses them", async () => {
  const w = await fundedWallet(h.sim, 100_000);
  const [buy, sell] = await place(w, order(BTC, true, "59000", "0.1", "Gtc"), order(BTC, false, "61000", "0.05", "Gtc"));
  const miss = await postJson(h.sim.url, "/sim/price", { symbol: "BTC", price: "59000.5" });
  assert.not.ok(miss.json.filledOids.includes(buy.resting.oid));
  const hit = await postJson(h.sim.url, "/sim/price", { symbol: "BTC", price: 59000 });
  assert.ok(hit.json.ok);
  assert.ok(hit.json.filledOids.includes(buy.resting.oid), "other users' crossed orders fill too");
  assert.not.ok(hit.json.filledOids.includes(sell.resting.oid));
  const [fill] = await h.info.userFills({ user: user(w) });
  // maker fee = 0.1 × 59000 × 0.00015 = 0.885
  assert.equal([fill.px, fill.sz, fill.crossed, fill.fee, fill.dir], ["59000.0", "0.1", false, "0.885", "Open Long"]);
  h.sim.setPrice("BTC", "61500");
  const status: any = await h.info.orderStatus({ user: user(w), oid: sell.resting.oid });
  assert.is(status.order.status, "filled");
  const state = await h.info.clearinghouseState({ user: user(w) });
  assert.is(state.assetPositions[0].position.szi, "0.05");
});

test("a resting reduce-only order whose position is gone is canceled, not filled", async () => {
  const w = await fundedWallet(h.sim, 100_000);
  await place(w, order(BTC, true, "60100", "0.2", "Ioc"));
  const [ro] = await place(w, order(BTC, false, "61000", "0.2", "Gtc", { r: true }));
  assert.ok(ro.resting);
  await place(w, order(BTC, false, "59000", "0.2", "Ioc", { r: true })); // closes the long first
  h.sim.setPrice("BTC", "61000");
  const status: any = await h.info.orderStatus({ user: user(w), oid: ro.resting.oid });
  assert.is(status.order.status, "reduceOnlyCanceled");
  assert.equal((await h.info.clearinghouseState({ user: user(w) })).assetPositions, []);
});

test("userFills is newest first; userFillsByTime selects by time, oldest first", async () => {
  const w = await fundedWallet(h.sim, 100_000);
  await place(w, order(BTC, true, "60100", "0.01", "Ioc"));
  await new Promise((r) => setTimeout(r, 5));
  const mid = Date.now();
  await new Promise((r) => setTimeout(r, 5));
  await place(w, order(BTC, false, "59000", "0.01", "Ioc"));
  const all = await h.info.userFills({ user: user(w) });
  assert.equal(all.map((f) => f.side), ["A", "B"]);
  const range = await h.info.userFillsByTime({ user: user(w), startTime: 0 });
  assert.equal(range.map((f) => f.side), ["B", "A"]);
  const later = await h.info.userFillsByTime({ user: user(w), startTime: mid });
  assert.equal(later.map((f) => f.side), ["A"]);
  const earlier = await h.info.userFillsByTime({ user: user(w), startTime: 0, endTime: mid });
  assert.equal(earlier.map((f) => f.side), ["B"]);
});

test("l2Book, allMids and metaAndAssetCtxs describe the synthetic market", async () => {
  const meta = await h.info.meta();
  assert.equal(meta.universe.map((u) => [u.name, u.szDecimals, u.maxLeverage]), [["BTC", 5, 40], ["ETH", 4, 25], ["SOL", 2, 20]]);
  const book = (await h.info.l2Book({ coin: "BTC" }))!;
  assert.equal(book.levels[0][0], { px: "59994.0", sz: "0.83341", n: 1 });
  assert.equal(book.levels[1].slice(0, 2).map((l) => l.px), ["60006.0", "60018.0"]);
  assert.is((await h.info.allMids()).BTC, "60000.0");
  const [, ctxs] = await h.info.metaAndAssetCtxs();
  assert.is(ctxs[0].markPx, "60000.0");
  assert.is(await h.info.l2Book({ coin: "NOPE" }), null);
});

test.run();
