// The trade panel's words and the order form's request (web/src/views/trade-words.ts, trade-form.ts):
// what POST /api/trade is sent from the form's values, and how an answer's fill and protection, a
// trigger order and a resting entry's stop and target read. Pure functions; the Chromium tests
// (vault-trading, vault-protection) drive the same code through the page.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { placedText, tradeBody } from "../../web/src/views/trade-form.js";
import { orderNote, orderPrice, type OpenOrder } from "../../web/src/views/trade-words.js";

const form = { symbol: "btc", side: "sell", size: "0.5", price: "", tif: "GTC", reduceOnly: "", stopLoss: "", takeProfit: "" };
const VAULT = "0x1111111111111111111111111111111111111111";

test("the request: market without price or tif, a limit with both, stop and target as {price}, the vault's address", () => {
  assert.equal(tradeBody(form), { symbol: "BTC", side: "sell", size: "0.5" });
  assert.equal(tradeBody({ ...form, price: "61000", reduceOnly: "true", stopLoss: "63000", takeProfit: "58000" }, VAULT), {
    symbol: "BTC", side: "sell", size: "0.5", price: "61000", tif: "GTC", reduceOnly: true,
    stopLoss: { price: "63000" }, takeProfit: { price: "58000" }, vaultAddress: VAULT,
  });
});

test("the notice: the fill, then each protection's state in words", () => {
  assert.is(placedText({ orderId: 12, status: "submitted", timestamp: 1 }, "0.01"), "Order 12 submitted.");
  assert.is(placedText({
    orderId: 12, status: "submitted", timestamp: 1, fill: { status: "filled", size: 0.01, averagePrice: 60039 },
    protection: [{ kind: "sl", price: 58000, status: "waitingForTrigger", orderId: 13 }, { kind: "tp", price: 64000, status: "rejected", error: "too close" }],
  }, "0.01"), "Order 12 submitted, filled 0.01 @ 60,039; stop 58,000 waits for its trigger, target 64,000 was rejected: too close.");
});

test("an open order: a trigger as Stop/Target with market or limit, an entry's waiting stop and target, the price a market trigger is bounded by", () => {
  const order: OpenOrder = { orderId: 1, symbol: "BTC", side: "sell", size: 0.1, price: 54150, status: "resting" };
  assert.is(orderNote(order), "-");
  const stop = { ...order, trigger: { price: 57000, kind: "sl" as const, market: true, triggered: false } };
  assert.is(orderNote(stop), "Stop 57,000 (market)");
  assert.is(orderPrice(stop), "market, bound 54,150");
  const target = { ...order, price: 64500, trigger: { price: 64000, kind: "tp" as const, market: false, triggered: true } };
  assert.is(orderNote(target), "Target 64,000 (limit), triggered");
  assert.is(orderPrice(target), "64,500");
  assert.is(orderNote({ ...order, side: "buy", price: 55000, protection: [{ kind: "sl", price: 50000, status: "waitingForFill" }] }),
    "stop 50,000 waits for the fill");
});

test.run();
