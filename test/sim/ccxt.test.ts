// CCXT (npm `ccxt`, a client nobody here wrote) against the sim: its `hyperliquid` class with
// urls.test (REST and WebSocket) pointed at the sim, then setSandboxMode(true), and no other option.
// One sim for the file (CCXT is large: imported once); each test is one client call, so a failure
// names the call.
import ccxt from "ccxt";
import { Wallet } from "ethers";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { within } from "../helpers/util.js";
import { startSim, type SimHarness } from "./_support.js";

const SYMBOL = "BTC/USDC:USDC";
let h: SimHarness;
let ex: InstanceType<typeof ccxt.pro.hyperliquid>;
let wallet: Wallet;

/** The client exactly as a user of CCXT would point it at the sim. */
function sandboxed(sim: SimHarness["sim"], w: Wallet) {
  const client = new ccxt.pro.hyperliquid({ walletAddress: w.address, privateKey: w.privateKey });
  client.urls.test = { public: sim.url, private: sim.url, ws: { public: `ws://127.0.0.1:${sim.port}/ws` } };
  client.setSandboxMode(true);
  return client;
}

/** CCXT on Node refuses plain ws:// URLs until this is called (its own error message says so). */
async function withWs<T extends { loadHttpProxyAgent(): Promise<unknown> }>(client: T): Promise<T> {
  await client.loadHttpProxyAgent();
  return client;
}

/** A price on the venue's grid near the mark, `bps` basis points away. */
function near(bps: number): number {
  return Math.round(Number(h.sim.mark("BTC")) * (1 + bps / 10_000));
}

test.before(async () => {
  h = await startSim();
  wallet = Wallet.createRandom() as unknown as Wallet;
  await h.sim.faucet(wallet.address, 100_000);
  ex = await withWs(sandboxed(h.sim, wallet));
});

test.after(async () => {
  await ex.close();
  await h.close();
});

test("loadMarkets lists the sim's perps as USDC-settled swaps", async () => {
  const markets = await ex.loadMarkets();
  assert.ok(markets[SYMBOL], Object.keys(markets).join(", "));
  assert.is(markets[SYMBOL]!.swap, true);
  assert.is(markets["ETH/USDC:USDC"]!.baseId, "1"); // the asset index, as on the venue
});

test("fetchBalance: the faucet's USDC", async () => {
  const balance = await ex.fetchBalance();
  assert.is(balance.USDC!.total, 100_000);
});

test("fetchTicker: the mark", async () => {
  const ticker = await ex.fetchTicker(SYMBOL);
  assert.is(ticker.symbol, SYMBOL);
  assert.is(String(ticker.last ?? ticker.close ?? ticker.info.markPx), h.sim.mark("BTC"));
});

test("fetchOrderBook: the sim's ladder around the mark", async () => {
  const book = await ex.fetchOrderBook(SYMBOL);
  assert.ok(book.bids.length > 0 && book.asks.length > 0);
  assert.ok(book.bids[0]![0]! < Number(h.sim.mark("BTC")) && book.asks[0]![0]! > Number(h.sim.mark("BTC")));
});

test("fetchOHLCV: 1m candles from the sim's price history", async () => {
  h.sim.setPrice("BTC", "60100");
  const candles = await ex.fetchOHLCV(SYMBOL, "1m", Date.now() - 3_600_000);
  assert.ok(candles.length >= 1, JSON.stringify(candles));
  assert.is(candles.at(-1)![4], 60100);
});

test("createOrder limit: a buy below the book rests", async () => {
  const order = await ex.createOrder(SYMBOL, "limit", "buy", 0.001, near(-200));
  assert.ok(order.id);
  assert.is((await ex.fetchOrder(order.id!, SYMBOL)).status, "open");
});

test("createOrder market: fills at once", async () => {
  const order = await ex.createOrder(SYMBOL, "market", "buy", 0.001, near(0));
  assert.ok(order.info.filled, JSON.stringify(order.info));
  const settled = await ex.fetchOrder(order.id!, SYMBOL);
  assert.is(settled.status, "closed");
  assert.is(settled.filled, 0.001);
});

test("editOrder: a resting order gets a new price", async () => {
  const order = await ex.createOrder(SYMBOL, "limit", "buy", 0.001, near(-300));
  const edited = await ex.editOrder(order.id!, SYMBOL, "limit", "buy", 0.001, near(-400));
  const open = await ex.fetchOpenOrders(SYMBOL);
  assert.ok(open.some((o) => o.price === near(-400)), JSON.stringify({ edited: edited.info, open: open.map((o) => o.price) }));
});

test("cancelOrder: a resting order goes away", async () => {
  const order = await ex.createOrder(SYMBOL, "limit", "buy", 0.001, near(-500));
  await ex.cancelOrder(order.id!, SYMBOL);
  const open = await ex.fetchOpenOrders(SYMBOL);
  assert.not.ok(open.some((o) => o.id === order.id));
});

test("fetchOpenOrders: what rests", async () => {
  const order = await ex.createOrder(SYMBOL, "limit", "sell", 0.001, near(600));
  const open = await ex.fetchOpenOrders(SYMBOL);
  assert.ok(open.some((o) => o.id === order.id && o.side === "sell"));
});

test("createOrder with stopLossPrice / takeProfitPrice: reduce-only trigger orders rest untriggered, then cancel", async () => {
  // The long of "createOrder market" is what these protect.
  const sl = await ex.createOrder(SYMBOL, "market", "sell", 0.001, near(-1000), { stopLossPrice: near(-1000), reduceOnly: true });
  const tp = await ex.createOrder(SYMBOL, "limit", "sell", 0.001, near(1000), { takeProfitPrice: near(1000), reduceOnly: true });
  assert.ok(sl.id && tp.id, JSON.stringify([sl.info, tp.info]));
  const open = await ex.fetchOpenOrders(SYMBOL);
  const [s, t] = [open.find((o) => o.id === sl.id), open.find((o) => o.id === tp.id)];
  assert.ok(s && t, JSON.stringify(open.map((o) => o.info)));
  assert.is(s!.triggerPrice, near(-1000));
  assert.is(s!.info.orderType, "Stop Market");
  assert.is(t!.triggerPrice, near(1000));
  assert.is(t!.info.orderType, "Take Profit Limit");
  await ex.cancelOrder(sl.id!, SYMBOL);
  await ex.cancelOrder(tp.id!, SYMBOL);
  const after = await ex.fetchOpenOrders(SYMBOL);
  assert.not.ok(after.some((o) => o.id === sl.id || o.id === tp.id));
  assert.is((await ex.fetchOrder(sl.id!, SYMBOL)).status, "canceled");
});

test("createOrder with params.triggerPrice: a stop that fires when the mark crosses it", async () => {
  await ex.createOrder(SYMBOL, "market", "buy", 0.001, near(0)); // what the stop closes (the file's long stays)
  const stop = await ex.createOrder(SYMBOL, "market", "sell", 0.001, near(-100), { triggerPrice: near(-100), reduceOnly: true });
  assert.is((await ex.fetchOrder(stop.id!, SYMBOL)).status, "open");
  h.sim.setPrice("BTC", String(near(-150)));
  const settled = await ex.fetchOrder(stop.id!, SYMBOL);
  assert.is(settled.status, "closed", JSON.stringify(settled.info));
  const fills = (await ex.fetchMyTrades(SYMBOL)).filter((t) => t.order === stop.id);
  assert.equal(fills.map((f) => [f.side, f.amount]), [["sell", 0.001]]);
});

test("fetchClosedOrders: filled and canceled orders", async () => {
  const closed = await ex.fetchClosedOrders(SYMBOL);
  assert.ok(closed.length >= 1, JSON.stringify(closed));
});

test("fetchPositions: the long the market order opened", async () => {
  const positions = await ex.fetchPositions([SYMBOL]);
  const btc = positions.find((p) => p.symbol === SYMBOL);
  assert.ok(btc, JSON.stringify(positions));
  assert.is(btc!.side, "long");
});

test("fetchMyTrades: the market order's fill", async () => {
  const trades = await ex.fetchMyTrades(SYMBOL);
  assert.ok(trades.length >= 1);
  assert.is(trades[0].symbol, SYMBOL);
});

test("setLeverage: 10x cross, seen in the position's leverage", async () => {
  await ex.setLeverage(10, SYMBOL, { marginMode: "cross" });
  const positions = await ex.fetchPositions([SYMBOL]);
  assert.is(positions.find((p) => p.symbol === SYMBOL)!.leverage, 10);
});

test("fetchFundingRate: the market's current rate", async () => {
  const rate = await ex.fetchFundingRate(SYMBOL);
  assert.is(rate.symbol, SYMBOL);
  assert.type(rate.fundingRate, "number");
});

test("fetchFundingHistory: the market's past rates", async () => {
  const history = await ex.fetchFundingRateHistory(SYMBOL);
  assert.ok(Array.isArray(history));
});

test("watchOrderBook: the book over the WebSocket, again after a move", async () => {
  const first = await within(ex.watchOrderBook(SYMBOL), 10_000, "the first book");
  assert.ok(first.bids.length > 0);
  h.sim.setPrice("BTC", "60500");
  const moved = await within(ex.watchOrderBook(SYMBOL), 10_000, "the moved book");
  assert.ok(moved.asks[0]![0]! > 60500 && moved.bids[0]![0]! < 60500, JSON.stringify(moved.asks[0]));
});

test("watchTrades: a trade on the sim arrives over the WebSocket", async () => {
  const pending = ex.watchTrades(SYMBOL);
  pending.catch(() => {}); // awaited below; a failing createOrder must not leave it unhandled
  const other = Wallet.createRandom() as unknown as Wallet;
  await h.sim.faucet(other.address, 10_000);
  const client = await withWs(sandboxed(h.sim, other));
  await client.createOrder(SYMBOL, "market", "sell", 0.001, near(0));
  await client.close();
  const trades = await within(pending, 10_000, "a trades message");
  assert.ok(trades.length >= 1 && trades[0]!.symbol === SYMBOL);
});

test("watchOrders: the client's own new order arrives over the WebSocket", async () => {
  const pending = ex.watchOrders(SYMBOL);
  pending.catch(() => {}); // awaited below; a failing createOrder must not leave it unhandled
  const order = await ex.createOrder(SYMBOL, "limit", "buy", 0.001, near(-700));
  const orders = await within(pending, 10_000, "an orderUpdates message");
  assert.ok(orders.some((o) => o.id === order.id), JSON.stringify(orders.map((o) => o.id)));
});

test.run();
