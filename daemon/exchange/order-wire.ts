// Hyperliquid's order shapes in and out of the daemon's types: the order wire an OrderRequest is sent
// as (a limit order or a trigger), the frontend order an open-order read returns (with its trigger
// and a normalTpsl entry's waiting children), and the statuses of a placement.
import { canonicalDecimal } from "../lib/decimal.js";
import type { Cloid, OpenOrderState, OrderRequest, PlaceOutcome, TpslChildOutcome, TriggerState } from "./types.js";

export const side = (s: string) => (s === "B" ? "buy" : "sell") as "buy" | "sell";
export const dec = (s: string | number) => canonicalDecimal(String(s));

/** frontendOpenOrders' element (orderStatus' `order`); openOrders' lacks the trigger fields. */
export interface RawOrder {
  coin: string; side: string; limitPx: string; sz: string; oid: number; timestamp: number; origSz: string;
  cloid?: string | null; reduceOnly?: boolean;
  isTrigger?: boolean; triggerPx?: string; triggerCondition?: string; orderType?: string; children?: RawOrder[];
}

/** The trigger of a frontend order: its kind and execution from orderType ("Stop Market", "Take Profit Limit", ...). */
function triggerOf(o: RawOrder): TriggerState | null {
  const type = o.orderType ?? "";
  const kind = type.startsWith("Stop") ? "sl" : type.startsWith("Take Profit") ? "tp" : undefined;
  if (!kind || o.triggerPx === undefined) return null;
  // The venue words a fired trigger's condition "Triggered"; a waiting one "Price above|below <px>".
  const triggered = o.isTrigger === false || o.triggerCondition === "Triggered";
  return { price: dec(o.triggerPx), kind, market: type.endsWith("Market"), triggered };
}

export function toOpenOrder(o: RawOrder): OpenOrderState {
  return {
    oid: o.oid, symbol: o.coin, side: side(o.side), limitPrice: dec(o.limitPx), size: dec(o.sz),
    origSize: dec(o.origSz), cloid: (o.cloid ?? null) as Cloid | null, reduceOnly: Boolean(o.reduceOnly), timestamp: o.timestamp,
    trigger: triggerOf(o), children: (o.children ?? []).map(toOpenOrder),
  };
}

/** The order wire (`a,b,p,s,r,t,c`): a limit order's time in force, or a trigger's condition. */
export function orderWire(order: OrderRequest) {
  const t = order.trigger
    ? { trigger: { isMarket: order.trigger.market, triggerPx: order.trigger.price, tpsl: order.trigger.kind } }
    : { limit: { tif: order.tif } };
  return { a: order.asset, b: order.isBuy, p: order.price, s: order.size, r: order.reduceOnly, t, c: order.cloid };
}

/** A placed order's outcome, or undefined for an error or a waiting status. */
export function placeOutcome(status: unknown): PlaceOutcome | undefined {
  if (status && typeof status === "object" && "resting" in status) {
    return { kind: "resting", oid: (status as { resting: { oid: number } }).resting.oid };
  }
  if (status && typeof status === "object" && "filled" in status) {
    const f = (status as { filled: { oid: number; totalSz: string; avgPx: string } }).filled;
    return { kind: "filled", oid: f.oid, totalSize: dec(f.totalSz), averagePrice: dec(f.avgPx) };
  }
  return undefined;
}

/** A normalTpsl child's answer: waiting for the entry's fill, waiting for its trigger, placed, or refused. */
export function childOutcome(status: unknown): TpslChildOutcome {
  if (status === "waitingForFill" || status === "waitingForTrigger") return { kind: status };
  const placed = placeOutcome(status);
  if (placed) return placed;
  const error = (status as { error?: unknown } | null)?.error;
  return { kind: "rejected", reason: typeof error === "string" ? error : `unexpected status ${JSON.stringify(status)}` };
}
