// @nktkas/hyperliquid (a client nobody here wrote) against the sim: InfoClient, ExchangeClient and
// SubscriptionClient with only isTestnet: true, the transports' URLs pointed at the sim and, on Node
// 20, `ws`'s WebSocket class. One sim for the file; each test is one client call, so a failure names it.
import { ExchangeClient, HttpTransport, InfoClient, SubscriptionClient, WebSocketTransport } from "@nktkas/hyperliquid";
import { Wallet } from "ethers";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { waitUntil } from "../helpers/util.js";
import { startSim, statusesOf, type SimHarness } from "./_support.js";
import { SdkWs } from "./ws-probe.js";

let h: SimHarness;
let info: InfoClient;
let exchange: ExchangeClient;
let ws: WebSocketTransport;
let subs: SubscriptionClient;
let user: `0x${string}`;

test.before(async () => {
  h = await startSim();
  const wallet = Wallet.createRandom();
  await h.sim.faucet(wallet.address, 100_000);
  user = wallet.address.toLowerCase() as `0x${string}`;
  // Exactly what a user writes: the URLs and isTestnet, nothing else.
  const http = new HttpTransport({ apiUrl: h.sim.url, isTestnet: true });
  ws = new WebSocketTransport({ url: `ws://127.0.0.1:${h.sim.port}/ws`, isTestnet: true, reconnect: { WebSocket: SdkWs } });
  info = new InfoClient({ transport: http });
  exchange = new ExchangeClient({ transport: http, wallet });
  subs = new SubscriptionClient({ transport: ws });
});

test.after(async () => {
  await ws.close();
  await h.close();
});

const gtc = (a: number, b: boolean, p: string, s: string) =>
  ({ orders: [{ a, b, p, s, r: false, t: { limit: { tif: "Gtc" as const } } }], grouping: "na" as const });
const ioc = (a: number, b: boolean, p: string, s: string) =>
  ({ orders: [{ a, b, p, s, r: false, t: { limit: { tif: "Ioc" as const } } }], grouping: "na" as const });

/** Resolves with the first event `subscribe` delivers that `match` accepts, then unsubscribes. */
// The SDK types each event; the assertions below read them loosely, so events are `any` here.
type Subscribe = (cb: (e: any) => void) => Promise<{ unsubscribe(): Promise<void> }>;
async function firstEvent(subscribe: Subscribe, match: (e: any) => boolean, what: string, act?: () => Promise<unknown>): Promise<any> {
  const got: any[] = [];
  const sub = await subscribe((e) => got.push(e));
  try {
    await act?.();
    return await waitUntil(() => got.find(match), { what });
  } finally {
    await sub.unsubscribe();
  }
}

// ---- InfoClient ------------------------------------------------------------------------------

test("info.meta", async () => assert.equal((await info.meta()).universe.map((u) => u.name), ["BTC", "ETH", "SOL"]));
test("info.spotMeta", async () => assert.ok((await info.spotMeta()).tokens.some((t) => t.name === "USDC")));
test("info.metaAndAssetCtxs", async () => assert.is((await info.metaAndAssetCtxs())[1].length, 3));
test("info.spotMetaAndAssetCtxs", async () => assert.ok(Array.isArray((await info.spotMetaAndAssetCtxs())[1])));
test("info.perpDexs", async () => assert.equal(await info.perpDexs(), [null]));
test("info.allMids", async () => assert.is(Number((await info.allMids()).BTC), Number(h.sim.mark("BTC"))));
test("info.l2Book with nSigFigs", async () => {
  const book = await info.l2Book({ coin: "BTC", nSigFigs: 3 });
  assert.ok(book!.levels[0].every((l) => /^[1-9]\d{0,2}0*(\.0)?$/.test(l.px)), JSON.stringify(book!.levels[0]));
});
test("info.candleSnapshot", async () => {
  const candles = await info.candleSnapshot({ coin: "ETH", interval: "1h", startTime: Date.now() - 86_400_000 });
  assert.ok(candles.length >= 1 && candles.at(-1)!.s === "ETH");
});
test("info.clearinghouseState", async () => assert.is((await info.clearinghouseState({ user })).withdrawable, "100000.0"));
test("info.userFees", async () => assert.is((await info.userFees({ user })).userCrossRate, "0.00045"));
test("info.userRateLimit", async () => assert.type((await info.userRateLimit({ user })).nRequestsCap, "number"));
test("info.userRole", async () => assert.equal(await info.userRole({ user }), { role: "user" }));
test("info.fundingHistory", async () => assert.ok(Array.isArray(await info.fundingHistory({ coin: "BTC", startTime: 0 }))));
test("info.userFunding", async () => assert.ok(Array.isArray(await info.userFunding({ user, startTime: 0 }))));

// ---- ExchangeClient --------------------------------------------------------------------------

test("exchange.order (resting) and info.openOrders / frontendOpenOrders / orderStatus", async () => {
  const [s] = await statusesOf(exchange.order(gtc(0, true, "50000", "0.001")));
  assert.ok(s.resting, JSON.stringify(s));
  assert.ok((await info.openOrders({ user })).some((o) => o.oid === s.resting.oid));
  assert.ok((await info.frontendOpenOrders({ user })).some((o) => o.oid === s.resting.oid));
  assert.is((await info.orderStatus({ user, oid: s.resting.oid })).status, "order");
});
test("exchange.order (IOC fill) and info.userFills", async () => {
  const [s] = await statusesOf(exchange.order(ioc(1, true, "3100", "0.1")));
  assert.ok(s.filled, JSON.stringify(s));
  assert.ok((await info.userFills({ user })).some((f) => f.oid === s.filled.oid));
});
test("exchange.modify", async () => {
  const [s] = await statusesOf(exchange.order(gtc(0, true, "50000", "0.001")));
  await exchange.modify({ oid: s.resting.oid, order: { a: 0, b: true, p: "49000", s: "0.001", r: false, t: { limit: { tif: "Gtc" } } } });
  assert.ok((await info.openOrders({ user })).some((o) => o.limitPx === "49000.0" || o.limitPx === "49000"));
});
test("exchange.batchModify", async () => {
  const [s] = await statusesOf(exchange.order(gtc(0, true, "50000", "0.001")));
  await exchange.batchModify({ modifies: [{ oid: s.resting.oid, order: { a: 0, b: true, p: "48000", s: "0.001", r: false, t: { limit: { tif: "Gtc" } } } }] });
  assert.ok((await info.openOrders({ user })).some((o) => Number(o.limitPx) === 48000));
});
test("exchange.cancel", async () => {
  const [s] = await statusesOf(exchange.order(gtc(0, true, "47000", "0.001")));
  assert.equal((await exchange.cancel({ cancels: [{ a: 0, o: s.resting.oid }] })).response.data.statuses, ["success"]);
});
test("exchange.cancelByCloid", async () => {
  const cloid = "0x8000000000000000000000000000abcd" as const;
  await statusesOf(exchange.order({ orders: [{ ...gtc(0, true, "46000", "0.001").orders[0]!, c: cloid }], grouping: "na" }));
  assert.equal((await exchange.cancelByCloid({ cancels: [{ asset: 0, cloid }] })).response.data.statuses, ["success"]);
});
test("exchange.order (trigger, reduce-only stop on the ETH long) and exchange.cancel", async () => {
  const sl = { a: 1, b: false, p: "2430", s: "0.1", r: true, t: { trigger: { isMarket: true, triggerPx: "2700", tpsl: "sl" as const } } };
  const [s] = await statusesOf(exchange.order({ orders: [sl], grouping: "na" }));
  assert.ok(s.resting, JSON.stringify(s));
  const fe = (await info.frontendOpenOrders({ user })).find((o) => o.oid === s.resting.oid);
  assert.equal(fe && [fe.isTrigger, fe.triggerPx, fe.orderType, fe.triggerCondition], [true, "2700.0", "Stop Market", "Price below 2700"]);
  assert.equal((await exchange.cancel({ cancels: [{ a: 1, o: s.resting.oid }] })).response.data.statuses, ["success"]);
  assert.not.ok((await info.openOrders({ user })).some((o) => o.oid === s.resting.oid));
});
test("exchange.order (normalTpsl: the stop waits for its entry's fill)", async () => {
  const entry = gtc(1, true, "2500", "0.01").orders[0]!;
  const tp = { a: 1, b: false, p: "3200", s: "0.01", r: true, t: { trigger: { isMarket: false, triggerPx: "3300", tpsl: "tp" as const } } };
  const statuses = await statusesOf(exchange.order({ orders: [entry, tp], grouping: "normalTpsl" }));
  assert.ok(statuses[0].resting, JSON.stringify(statuses));
  assert.is(statuses[1], "waitingForFill");
  const fe = (await info.frontendOpenOrders({ user })).find((o) => o.oid === statuses[0].resting.oid);
  assert.equal(fe?.children.map((c: any) => c.orderType), ["Take Profit Limit"]);
  await exchange.cancel({ cancels: [{ a: 1, o: statuses[0].resting.oid }] });
});
test("exchange.updateLeverage (cross)", async () => {
  await exchange.updateLeverage({ asset: 2, isCross: true, leverage: 5 });
});
test("exchange.updateLeverage (isolated) and exchange.updateIsolatedMargin", async () => {
  // The venue refuses to switch a coin with an open position (the ETH bought above) to isolated.
  const refused = await exchange.updateLeverage({ asset: 1, isCross: false, leverage: 10 }).then(() => undefined, (e) => e);
  assert.is(refused?.response?.response, "Cannot switch leverage type with open position.", String(refused));
  await exchange.updateLeverage({ asset: 0, isCross: false, leverage: 10 });
  assert.ok((await statusesOf(exchange.order(ioc(0, true, "61000", "0.001"))))[0].filled);
  await exchange.updateIsolatedMargin({ asset: 0, isBuy: true, ntli: 10_000_000 });
  const btc = (await info.clearinghouseState({ user })).assetPositions.find((p) => p.position.coin === "BTC");
  assert.is(btc!.position.leverage.type, "isolated");
});
test("exchange.scheduleCancel: refused by the venue's volume gate in its JSON error form", async () => {
  // The gate is checked before the time, and the time is an hour ahead: no clock or load can change the answer.
  const err = await exchange.scheduleCancel({ time: Date.now() + 3_600_000 }).then(() => undefined, (e) => e);
  assert.match(String(err?.response?.response), /Cannot set scheduled cancel time until enough volume traded/, String(err));
});
test("exchange.usdClassTransfer", async () => {
  await exchange.usdClassTransfer({ amount: "1", toPerp: false });
});
test("exchange.withdraw3 is refused in the venue's JSON error form", async () => {
  const err = await exchange.withdraw3({ destination: user, amount: "1" }).then(() => undefined, (e) => e);
  assert.ok(err, "a paper exchange cannot withdraw");
  assert.is(err.response?.status, "err", String(err));
});
test("info.historicalOrders", async () => assert.ok((await info.historicalOrders({ user })).length >= 1));

// ---- SubscriptionClient ----------------------------------------------------------------------

test("subscribe.allMids", async () => {
  const e = await firstEvent((cb) => subs.allMids(cb), () => true, "allMids");
  assert.is(Number(e.mids.BTC), Number(h.sim.mark("BTC")));
});
test("subscribe.l2Book", async () => {
  const e = await firstEvent((cb) => subs.l2Book({ coin: "ETH" }, cb), () => true, "l2Book");
  assert.is(e.coin, "ETH");
});
test("subscribe.bbo", async () => {
  const e = await firstEvent((cb) => subs.bbo({ coin: "SOL" }, cb), () => true, "bbo");
  assert.ok(e.bbo[0] && e.bbo[1] && Number(e.bbo[0].px) < Number(e.bbo[1].px));
});
test("subscribe.candle", async () => {
  const e = await firstEvent((cb) => subs.candle({ coin: "BTC", interval: "15m" }, cb), () => true, "candle");
  assert.is(e.i, "15m");
});
test("subscribe.trades", async () => {
  const e = await firstEvent((cb) => subs.trades({ coin: "SOL" }, cb), (t) => t.some((x: any) => x.coin === "SOL"), "trades",
    () => statusesOf(exchange.order(ioc(2, true, "160", "1"))));
  assert.is(e[0]!.coin, "SOL");
});
test("subscribe.orderUpdates", async () => {
  const e = await firstEvent((cb) => subs.orderUpdates({ user }, cb), (u) => u.some((x: any) => x.status === "open"), "an open order update",
    () => statusesOf(exchange.order(gtc(2, true, "100", "0.5"))));
  assert.is(e[0]!.order.coin, "SOL");
});
test("subscribe.userFills (isSnapshot first)", async () => {
  const e = await firstEvent((cb) => subs.userFills({ user }, cb), () => true, "userFills");
  assert.is(e.isSnapshot, true);
  assert.ok(e.fills.length >= 1);
});
test("subscribe.userEvents", async () => {
  const e = await firstEvent((cb) => subs.userEvents({ user }, cb), (x) => "fills" in x, "userEvents fills",
    () => statusesOf(exchange.order(ioc(2, false, "140", "1"))));
  assert.ok("fills" in e);
});
test("subscribe.notification", async () => {
  const sub = await subs.notification({ user }, () => {});
  await sub.unsubscribe();
});

test.run();
