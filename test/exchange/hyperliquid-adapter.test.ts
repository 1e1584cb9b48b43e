// The Hyperliquid adapter over HTTP against the sim: wire shapes mapped into the daemon's types, and
// the exchange's failures translated into the API's error codes.
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { Wallet } from "ethers";
import { createServer } from "node:http";
import { isAppError } from "../../daemon/errors.js";
import { createHyperliquidAdapter } from "../../daemon/exchange/hyperliquid-adapter.js";
import { weightLimiter } from "../../daemon/exchange/weight-limiter.js";
import { newCloid } from "../../daemon/trading/trading-service.js";
import { adapterWithAgent, type AdapterRig } from "./_adapter.js";

const t = suite<AdapterRig>("hyperliquid adapter");
// Long enough that no answer the sim gives on a busy machine meets it; the timeout's own tests use an
// adapter of 1 s against a sim that would hang far longer.
const RIG_TIMEOUT_MS = 120_000;
const HANG_MS = 600_000;
const impatient = (h: AdapterRig["h"]) => createHyperliquidAdapter({ kind: "sim", url: h.sim.url, isTestnet: true, timeoutMs: 1_000 });
t.before(async (ctx) => {
  Object.assign(ctx, await adapterWithAgent(RIG_TIMEOUT_MS));
});
t.after(async (ctx) => {
  await ctx.h.close();
});

async function code(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    if (isAppError(e)) return e.code;
    throw e;
  }
  return "no error";
}

t("markets, mids, account state and ledger come back as exact decimal strings", async ({ ex, master }) => {
  const markets = await ex.markets();
  assert.equal(markets.slice(0, 3).map((m) => [m.symbol, m.asset, m.szDecimals]), [["BTC", 0, 5], ["ETH", 1, 4], ["SOL", 2, 2]]);
  assert.is(await ex.markets(), await ex.markets(), "cached");
  const mids = await ex.mids();
  assert.match(mids.BTC!, /^\d+(\.\d+)?$/);
  const state = await ex.accountState(master.address);
  assert.is(state.accountValue, "5000");
  assert.equal(state.positions, []);
  const ledger = await ex.ledgerUpdates(master.address, 0);
  assert.equal(ledger.map((l) => [l.type, l.usdcDelta]), [["deposit", "5000"]]);
  const agents = await ex.approvedAgents(master.address);
  assert.is(agents.length, 1);
  assert.is(agents[0]!.validUntil, 4102444800000);
});

t("a withdrawal from the account (the sim's control) is money leaving: a negative USDC delta", async ({ h, ex }) => {
  const user = Wallet.createRandom().address;
  await h.sim.faucet(user, "1000");
  h.sim.withdraw(user, "250.5");
  const ledger = await ex.ledgerUpdates(user, 0);
  assert.equal(ledger.map((l) => [l.type, l.usdcDelta]), [["deposit", "1000"], ["withdraw", "-250.5"]]);
  assert.is((await ex.accountState(user)).accountValue, "749.5");
});

t("place (resting and filled), order status by oid and cloid, open orders, fills, cancel", async ({ ex, master, agent }) => {
  const cloid = newCloid();
  const resting = await ex.placeOrder(agent, { asset: 0, isBuy: true, price: "50000", size: "0.01", reduceOnly: false, tif: "Gtc", cloid });
  assert.is(resting.kind, "resting");
  const byCloid = await ex.orderStatus(master.address, cloid);
  assert.ok(byCloid.found && byCloid.status === "open" && byCloid.order.oid === resting.oid && byCloid.order.cloid === cloid);
  const open = await ex.openOrders(master.address);
  assert.equal(open.map((o) => [o.oid, o.symbol, o.side, o.limitPrice, o.size]), [[resting.oid, "BTC", "buy", "50000", "0.01"]]);

  const filled = await ex.placeOrder(agent, { asset: 1, isBuy: true, price: "3100", size: "0.1", reduceOnly: false, tif: "Ioc", cloid: newCloid() });
  assert.is(filled.kind, "filled");
  if (filled.kind === "filled") assert.is(filled.totalSize, "0.1");
  const fills = await ex.fills(master.address, 0);
  assert.ok(fills.some((f) => f.oid === filled.oid && f.symbol === "ETH" && f.side === "buy"));
  const state = await ex.accountState(master.address);
  assert.is(state.positions[0]!.size, "0.1");

  await ex.cancelOrder(agent, { asset: 0, oid: resting.oid });
  assert.is(await code(ex.cancelOrder(agent, { asset: 0, oid: resting.oid })), "ORDER_NOT_OPEN");
  assert.equal((await ex.orderStatus(master.address, 123456789)).found, false);
});

t("venue rejections map to ORDER_REJECTED (with the reason), INSUFFICIENT_BALANCE and AGENT_NOT_APPROVED", async ({ ex, agent }) => {
  const base = { asset: 0, isBuy: true, reduceOnly: false, tif: "Gtc" as const };
  try {
    await ex.placeOrder(agent, { ...base, price: "50000", size: "0.0001", cloid: newCloid() });
    assert.unreachable();
  } catch (e) {
    assert.ok(isAppError(e) && e.code === "ORDER_REJECTED");
    assert.match((e as any).details.reason, /^Order must have minimum value of \$10\.$/, "asset suffix stripped");
  }
  assert.is(await code(ex.placeOrder(agent, { ...base, price: "60000", size: "10", cloid: newCloid() })), "INSUFFICIENT_BALANCE");
  const stranger = Wallet.createRandom() as unknown as Wallet;
  assert.is(await code(ex.placeOrder(stranger, { ...base, price: "50000", size: "0.01", cloid: newCloid() })), "AGENT_NOT_APPROVED");
});

t("5xx and timeouts become retryable EXCHANGE_UNAVAILABLE", async ({ h, ex, master }) => {
  h.sim.faults.next({ kind: "http500", endpoint: "info" });
  try {
    await ex.accountState(master.address);
    assert.unreachable();
  } catch (e) {
    assert.ok(isAppError(e) && e.code === "EXCHANGE_UNAVAILABLE" && e.retryable);
  }
  h.sim.faults.next({ kind: "timeout", endpoint: "info", delayMs: HANG_MS });
  assert.is(await code(impatient(h).mids()), "EXCHANGE_UNAVAILABLE");
});

t("an order the exchange leaves unanswered ends at the adapter's timeout, a dropped answer and the caller's abort at once: all unavailable, retryable", async ({ h, ex, agent }) => {
  const order = () => ({ asset: 0, isBuy: true, price: "50000", size: "0.01", reduceOnly: false, tif: "Gtc" as const, cloid: newCloid() });
  const failure = async (p: Promise<unknown>) => {
    const t0 = Date.now();
    try {
      await p;
    } catch (e) {
      if (!isAppError(e)) throw e;
      return { code: e.code, retryable: e.retryable, message: e.message, ms: Date.now() - t0 };
    }
    throw new Error("expected a failure");
  };
  h.sim.faults.next({ kind: "http500", endpoint: "exchange" });
  const refused = await failure(ex.placeOrder(agent, order()));
  assert.equal([refused.code, refused.retryable], ["EXCHANGE_UNAVAILABLE", true]);
  assert.match(refused.message, "(HTTP 500)");
  // This adapter's timeout is 1 s; the sim would hang for 10 minutes, so an end is the timeout's.
  h.sim.faults.next({ kind: "timeout", endpoint: "exchange", delayMs: HANG_MS });
  const slow = await failure(impatient(h).placeOrder(agent, order()));
  assert.equal([slow.code, slow.retryable], ["EXCHANGE_UNAVAILABLE", true]);
  assert.ok(slow.ms >= 900, `ended after ${slow.ms} ms, before the timeout`);
  h.sim.faults.next({ kind: "drop-after-processing", endpoint: "exchange" });
  const dropped = await failure(ex.placeOrder(agent, order()));
  assert.equal([dropped.code, dropped.retryable], ["EXCHANGE_UNAVAILABLE", true]);
  // The rig's adapter would wait 2 minutes and the sim answer in 10: an end is the caller's abort.
  h.sim.faults.next({ kind: "delay", endpoint: "exchange", delayMs: HANG_MS });
  const abort = new AbortController();
  setTimeout(() => abort.abort(), 50);
  const aborted = await failure(ex.placeOrder(agent, order(), { signal: abort.signal }));
  assert.equal([aborted.code, aborted.retryable], ["EXCHANGE_UNAVAILABLE", true]);
  assert.ok(aborted.ms < RIG_TIMEOUT_MS, `ended after ${aborted.ms} ms`);
});

t("a base URL with a path (an exchange behind a proxy's prefix) keeps it; its 429 asks the caller to wait", async () => {
  const seen: string[] = [];
  let status = 200;
  const server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    res.writeHead(status, { "Content-Type": "application/json" });
    res.end(status === 200 ? JSON.stringify({ BTC: "60000" }) : "null");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  try {
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/hl`;
    const ex = createHyperliquidAdapter({ kind: "sim", url, isTestnet: true, timeoutMs: 1_000 });
    assert.equal(await ex.mids(), { BTC: "60000" });
    assert.equal(seen, ["POST /hl/info"]);
    status = 429;
    try {
      await ex.mids();
      assert.unreachable();
    } catch (e) {
      assert.ok(isAppError(e) && e.code === "EXCHANGE_UNAVAILABLE" && e.retryable && e.retryAfter === 10, String(e));
      assert.match(e.message, "(HTTP 429)");
    }
  } finally {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
});

t("an action past its expiresAfter is refused by the exchange", async ({ ex, agent }) => {
  const r = await code(ex.placeOrder(agent, { asset: 0, isBuy: true, price: "50000", size: "0.01", reduceOnly: false, tif: "Gtc", cloid: newCloid() }, { expiresAfter: Date.now() - 1_000 }));
  assert.is(r, "ORDER_REJECTED");
});

t("the weight limiter makes callers wait for weight and keeps a reserve from background work", async () => {
  let now = 0;
  const limiter = weightLimiter({ perMinute: 120, reservedForTrading: 20, clock: () => now, maxWaitMs: 1_000 });
  await limiter.acquire(100, { priority: "background" });
  // background may not dip into the last 20; trading may
  await limiter.acquire(20, { priority: "trading" });
  try {
    await limiter.acquire(60, { priority: "background" }); // 60 weight at 2/s is 30 s away: refused
    assert.unreachable();
  } catch (e) {
    assert.ok(isAppError(e) && e.code === "EXCHANGE_UNAVAILABLE");
  }
  now += 60_000;
  await limiter.acquire(100, { priority: "background" });
  assert.ok(limiter.available() < 21);
});

t.run();
