// The venue's rules for one order, as pure functions over decimal strings (DESIGN section 6):
// known symbol, size and price precision, the 10 USDC minimum, and market orders as IOC at the mid
// price moved by a slippage bound.
import { AppError } from "../errors.js";
import type { Market, Side, Tif, TriggerKind } from "../exchange/types.js";
import {
  compareDecimal, decimalPlaces, fixed, isValidPrice, maxPriceDecimals, roundPrice, significantFigures,
} from "../lib/decimal.js";

export const MIN_ORDER_VALUE = "10";

/**
 * Sizes and prices stay below this: far past any market, and still a finite JSON number when the API
 * renders them (a 400-digit price the venue took as a trigger would render as null).
 */
export const MAX_ORDER_FIGURE = "1000000000000000";

/** A stop-loss or take-profit: waits off the book until the mark crosses `price`. */
export interface TriggerIntent {
  price: string;
  kind: TriggerKind;
  /** Executes as a market order (the default) or as a limit order at the intent's `price`. */
  market: boolean;
}

/** An entry's own stop-loss and take-profit trigger prices (sent with it as one normalTpsl action). */
export interface ProtectionIntent {
  stopLoss?: string;
  takeProfit?: string;
}

export interface OrderIntent {
  symbol: string;
  side: Side;
  size: string;
  price?: string;
  tif?: Tif;
  reduceOnly: boolean;
  trigger?: TriggerIntent;
  protection?: ProtectionIntent;
}

export interface CheckedOrder {
  market: Market;
  isBuy: boolean;
  size: string;
  price: string;
  tif: Tif;
  reduceOnly: boolean;
  isMarket: boolean;
  trigger?: TriggerIntent;
  /** The entry's stop-loss and take-profit: reduce-only market triggers on the other side, its size. */
  children?: CheckedOrder[];
}

const q = fixed(18);

function invalid(field: string, message: string): AppError {
  return new AppError("INVALID_INPUT", `${field}: ${message}`, { details: [{ field: `body.${field}`, message }] });
}

/** The limit price of a market order: mid × (1 ± slippage), rounded to what the venue accepts. */
export function marketPrice(mid: string, isBuy: boolean, slippageBps: number, szDecimals: number): string {
  const factor = BigInt(10_000 + (isBuy ? slippageBps : -slippageBps));
  const px = q.format((q.parse(mid) * factor) / 10_000n);
  return roundPrice(px, szDecimals, "half-up");
}

export function checkOrder(
  intent: OrderIntent,
  markets: Market[],
  mid: () => string | undefined,
  slippageBps: number,
): CheckedOrder {
  const market = markets.find((m) => m.symbol === intent.symbol);
  if (!market) {
    throw invalid("symbol", `unknown symbol "${intent.symbol}"; known: ${markets.slice(0, 20).map((m) => m.symbol).join(", ")}`);
  }
  if (compareDecimal(intent.size, "0") <= 0) throw invalid("size", "must be greater than 0");
  if (compareDecimal(intent.size, MAX_ORDER_FIGURE) >= 0) throw invalid("size", `must be below ${MAX_ORDER_FIGURE}`);
  if (decimalPlaces(intent.size) > market.szDecimals) {
    throw invalid("size", `${market.symbol} sizes have at most ${market.szDecimals} decimals`);
  }
  const isBuy = intent.side === "buy";
  if (intent.trigger) {
    if (intent.protection) throw invalid("trigger", "a trigger order cannot carry stopLoss or takeProfit; put them on the entry");
    return checkTrigger(intent, intent.trigger, market, isBuy, slippageBps, markOf(market, mid));
  }
  let price: string;
  let reference: string;
  let tif: Tif;
  if (intent.price === undefined) {
    if (intent.tif && intent.tif !== "Ioc") throw invalid("tif", "a market order (no price) is IOC; give a price for GTC or ALO");
    const m = mid();
    if (!m) throw new AppError("EXCHANGE_UNAVAILABLE", `no mid price for ${market.symbol}`, { retryable: true });
    price = marketPrice(m, isBuy, slippageBps, market.szDecimals);
    reference = m;
    tif = "Ioc";
  } else {
    checkPrice("price", intent.price, market);
    price = reference = intent.price;
    tif = intent.tif ?? "Gtc";
  }
  checkMinimum(intent, price);
  const entry = { market, isBuy, size: intent.size, price, tif, reduceOnly: intent.reduceOnly, isMarket: intent.price === undefined };
  if (!intent.protection) return entry;
  return { ...entry, children: checkProtection(intent, intent.protection, market, reference, slippageBps, markOf(market, mid)) };
}

function markOf(market: Market, mid: () => string | undefined): string {
  const m = mid();
  if (!m) throw new AppError("EXCHANGE_UNAVAILABLE", `no mid price for ${market.symbol}`, { retryable: true });
  return m;
}

/** A trigger fires when the mark rises to its price (a sell take-profit, a buy stop-loss) or falls to it. */
export const firesAbove = (kind: TriggerKind, isBuy: boolean): boolean => (kind === "tp") !== isBuy;

/** How far from the mark a trigger may sit: a fifth of it to five times it. */
const MARK_BAND = 5n;

/**
 * A trigger price must be one the mark has yet to reach, on the side it fires on (one already past
 * fires the moment it is placed, which nobody means), and within a band around the mark, which keeps
 * prices no market reaches (1e21, 400 digits) out of the audit trail and the answers.
 */
function checkTriggerPrice(field: string, price: string, kind: TriggerKind, isBuy: boolean, mark: string): void {
  const p = q.parse(price);
  const m = q.parse(mark);
  if (p > m * MARK_BAND || p * MARK_BAND < m) throw invalid(field, `must be within a fifth and five times the mark ${mark}`);
  const above = firesAbove(kind, isBuy);
  if (above ? p <= m : p >= m) {
    const what = `a ${isBuy ? "buy" : "sell"} ${kind === "sl" ? "stop-loss" : "take-profit"}`;
    throw invalid(field, `${what} fires when the mark ${above ? "rises" : "falls"} to it: it must be ${above ? "above" : "below"} the mark ${mark}`);
  }
}

/**
 * An entry's stop-loss and take-profit, each a reduce-only market trigger for the entry's size on the
 * other side. Each must sit on its own side of the entry's price (the limit, or the mid for a market
 * entry): a long's stop below it and its target above, a short's the other way round. Otherwise the
 * child would fire the moment the entry fills, which no one asks for on purpose.
 */
function checkProtection(intent: OrderIntent, p: ProtectionIntent, market: Market, reference: string, slippageBps: number, mark: string): CheckedOrder[] {
  if (intent.reduceOnly) throw invalid("reduceOnly", "an order that carries a stop-loss or take-profit opens or adds to a position; it cannot be reduce-only");
  const long = intent.side === "buy";
  const child = (field: "stopLoss" | "takeProfit", price: string, kind: TriggerKind): CheckedOrder => {
    checkPrice(`${field}.price`, price, market);
    const below = compareDecimal(price, reference) < 0;
    const mustBeBelow = (kind === "sl") === long;
    if (below !== mustBeBelow || compareDecimal(price, reference) === 0) {
      const side = mustBeBelow ? "below" : "above";
      throw invalid(`${field}.price`, `a ${long ? "long" : "short"}'s ${kind === "sl" ? "stop-loss" : "take-profit"} must be ${side} the entry price ${reference}`);
    }
    const m = q.parse(mark);
    if (q.parse(price) > m * MARK_BAND || q.parse(price) * MARK_BAND < m) throw invalid(`${field}.price`, `must be within a fifth and five times the mark ${mark}`);
    const trigger = { price, kind, market: true };
    return {
      market, isBuy: !long, size: intent.size, price: marketPrice(price, !long, slippageBps, market.szDecimals),
      tif: "Ioc", reduceOnly: true, isMarket: true, trigger,
    };
  };
  return [
    ...(p.stopLoss === undefined ? [] : [child("stopLoss", p.stopLoss, "sl")]),
    ...(p.takeProfit === undefined ? [] : [child("takeProfit", p.takeProfit, "tp")]),
  ];
}

function checkPrice(field: string, price: string, market: Market): void {
  if (compareDecimal(price, "0") <= 0) throw invalid(field, "must be greater than 0");
  if (compareDecimal(price, MAX_ORDER_FIGURE) >= 0) throw invalid(field, `must be below ${MAX_ORDER_FIGURE}`);
  if (!isValidPrice(price, market.szDecimals)) {
    const places = maxPriceDecimals(market.szDecimals);
    const why = significantFigures(price) > 5 ? "at most 5 significant figures" : `at most ${places} decimals`;
    throw invalid(field, `${market.symbol} prices have ${why} (integers always allowed)`);
  }
}

/** Reduce-only orders may close a position worth less than the minimum; the venue decides those. */
function checkMinimum(intent: OrderIntent, price: string): void {
  if (!intent.reduceOnly && q.mul(q.parse(intent.size), q.parse(price), "down") < q.parse(MIN_ORDER_VALUE)) {
    throw invalid("size", `the order is worth less than the minimum of ${MIN_ORDER_VALUE} USDC (size × price)`);
  }
}

/**
 * A trigger order. A market trigger's wire price is the slippage bound around its trigger price, as
 * a market order's is around the mid, so a price that gaps past the trigger still fills within it; a
 * limit trigger rests at the intent's own price once it fires.
 */
function checkTrigger(intent: OrderIntent, trigger: TriggerIntent, market: Market, isBuy: boolean, slippageBps: number, mark: string): CheckedOrder {
  checkPrice("trigger.price", trigger.price, market);
  checkTriggerPrice("trigger.price", trigger.price, trigger.kind, isBuy, mark);
  if (intent.tif !== undefined) throw invalid("tif", "a trigger order takes no tif: a market trigger fires as IOC, a limit trigger rests (GTC)");
  let price: string;
  if (trigger.market) {
    if (intent.price !== undefined) throw invalid("price", "a market trigger takes no price (set trigger.market to false for a limit at price)");
    price = marketPrice(trigger.price, isBuy, slippageBps, market.szDecimals);
  } else {
    if (intent.price === undefined) throw invalid("price", "a limit trigger (trigger.market false) needs the limit price it rests at once it fires");
    checkPrice("price", intent.price, market);
    price = intent.price;
  }
  checkMinimum(intent, trigger.market ? trigger.price : price);
  return { market, isBuy, size: intent.size, price, tif: trigger.market ? "Ioc" : "Gtc", reduceOnly: intent.reduceOnly, isMarket: trigger.market, trigger };
}
