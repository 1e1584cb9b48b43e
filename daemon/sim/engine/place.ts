// Placing one limit order: Hyperliquid's validation order (tick, size, minimum value unless the order
// closes the whole position, reduce-only, ALO/IOC rules, margin), then taking liquidity from the
// synthetic book up to the limit price, then resting the remainder (GTC/ALO) or dropping it (IOC).
// A trigger order is handed to triggers.ts, which checks and records it; when it fires it comes back
// through matchOrder. Every order that names a valid asset gets an oid and a stored status,
// rejections included, so orderStatus by cloid can settle an in-doubt order.
import { isValidPrice, isValidSize } from "../../lib/decimal.js";
import { F, abs, max, min, px, exact } from "../num.js";
import type { OrderWire } from "../wire.js";
import type { Market, Order, OrderStatus, TriggerSpec } from "../types.js";
import { buildBook, crossingLevels, type BookLevel } from "./book.js";
import { markOf, type EngineCtx } from "./context.js";
import { applyFill } from "./fills.js";
import { accountView, freeCrossMargin, leverageOf } from "./margin.js";
import { announceFill, announceOrder } from "./orders.js";
import { afterFill, placeTrigger, type TriggerPlacement } from "./triggers.js";

export type OrderResult =
  | { resting: { oid: number; cloid?: string } }
  | { filled: { totalSz: string; avgPx: string; oid: number; cloid?: string } }
  | { error: string };

export interface Placement {
  ctx: EngineCtx;
  user: string;
  w: OrderWire;
  market: Market;
  hash: string;
}

export function record(p: Placement, status: OrderStatus, remaining: bigint, tif: Order["tif"], trigger?: TriggerSpec): Order {
  const now = p.ctx.now();
  const order: Order = {
    oid: p.ctx.nextOid(), user: p.user, coin: p.market.name, isBuy: p.w.b, limitPx: F.parse(p.w.p), sz: remaining,
    origSz: F.parse(p.w.s), tif, reduceOnly: p.w.r, cloid: p.w.c ?? null, status, createdAt: now, statusAt: now,
    ...(trigger ? { trigger } : {}),
  };
  p.ctx.repo.insertOrder(order);
  return order;
}

function reject(p: Placement, message: string, status: OrderStatus): OrderResult {
  if ("limit" in p.w.t) announceOrder(p.ctx, record(p, status, F.parse(p.w.s), p.w.t.limit.tif), false);
  return { error: `${message} asset=${p.w.a}` };
}

/**
 * Whether the account can afford `sz` more at `limitPx`: margin left for new orders after positions
 * and resting orders (which reserve margin too). Cross margin pays for every order: an isolated
 * position's margin is moved out of it when the order fills.
 */
export function hasMargin(ctx: EngineCtx, user: string, market: Market, isBuy: boolean, limitPx: bigint, sz: bigint): boolean {
  const view = accountView(ctx.repo, ctx.markets, user, ctx.cfg.defaultLeverage);
  const szi = ctx.repo.getPosition(user, market.name).szi;
  const increase = max(0n, abs(szi + (isBuy ? sz : -sz)) - abs(szi));
  const lev = leverageOf(ctx.repo, user, market, ctx.cfg.defaultLeverage);
  const fee = F.mul(F.mul(sz, limitPx, "up"), F.parse(ctx.cfg.fees.taker), "up");
  const required = F.mul(increase, limitPx, "up") / BigInt(lev) + fee;
  return required <= freeCrossMargin(view);
}

/**
 * A reduce-only order for at least the whole position, on the other side: exempt from the minimum
 * order value, so a position worth less than $10 can still be closed. The venue does not document
 * this (its own Close button appears to do it; see docs/sim.md, "Dust closes"); an order that only
 * reduces is not exempt.
 */
function closesWholePosition(w: OrderWire, szi: bigint, sz: bigint): boolean {
  return w.r && szi !== 0n && szi > 0n !== w.b && sz >= abs(szi);
}

export function placeOrder(ctx: EngineCtx, user: string, w: OrderWire, hash: string, opts: TriggerPlacement = {}): OrderResult {
  const market = ctx.markets.byAsset(w.a);
  if (!market) return { error: `Invalid asset. asset=${w.a}` };
  const p: Placement = { ctx, user, w, market, hash };
  // Before any rejection: a rejected order is recorded with its cloid, which must stay unique.
  if (w.c && ctx.repo.orderByCloid(user, w.c)) return { error: `Duplicate cloid. asset=${w.a}` };
  if (!("limit" in w.t)) return placeTrigger(p, w.t.trigger, opts);
  const tif = w.t.limit.tif;
  if (!isValidPrice(w.p, market.szDecimals)) return reject(p, "Price must be divisible by tick size.", "tickRejected");
  if (!isValidSize(w.s, market.szDecimals)) return reject(p, "Order has invalid size.", "rejected");
  const limitPx = F.parse(w.p);
  let sz = F.parse(w.s);
  const szi = ctx.repo.getPosition(user, market.name).szi;
  if (F.mul(limitPx, sz, "down") < F.parse(ctx.cfg.minOrderValueUsd) && !(ctx.cfg.dustClosesExempt && closesWholePosition(w, szi, sz))) {
    return reject(p, `Order must have minimum value of $${ctx.cfg.minOrderValueUsd}.`, "minTradeNtlRejected");
  }
  if (w.r) {
    if (szi === 0n || szi > 0n === w.b) return reject(p, "Reduce only order would increase position.", "reduceOnlyRejected");
    sz = min(sz, abs(szi)); // reduce-only never flips: cap at the position
  }
  const book = buildBook(markOf(ctx, market), market, ctx.cfg.book);
  const levels = crossingLevels(book, w.b, limitPx);
  if (tif === "Alo" && levels.length > 0) {
    const bbo = `${F.format(book.bids[0]?.px ?? 0n)}@${F.format(book.asks[0]?.px ?? 0n)}`;
    return reject(p, `Post only order would have immediately matched, bbo was ${bbo}.`, "badAloPxRejected");
  }
  const immediate = tif === "Ioc" || tif === "FrontendMarket";
  if (immediate && levels.length === 0) {
    return reject(p, "Order could not immediately match against any resting orders.", "iocCancelRejected");
  }
  if (!w.r && !hasMargin(ctx, user, market, w.b, limitPx, sz)) return reject(p, "Insufficient margin to place order.", "perpMarginRejected");
  return matchOrder(ctx, record(p, "open", sz, tif), p.hash, levels);
}

/**
 * Takes liquidity for a recorded open order (`order.sz` is what it may fill) from the book levels it
 * crosses, then rests the remainder (GTC/ALO) or drops it (IOC, FrontendMarket). A fired trigger
 * order goes through here too, under its own oid.
 */
export function matchOrder(ctx: EngineCtx, order: Order, hash: string, levels: BookLevel[]): OrderResult {
  const { user, oid, tif } = order;
  const sz = order.sz;
  let filled = 0n;
  let notional = 0n;
  for (const level of levels) {
    const take = min(sz - filled, level.sz);
    if (take <= 0n) break;
    const { record: fill } = applyFill(ctx.repo, ctx.cfg.fees, ctx.nextTid(), {
      user, coin: order.coin, isBuy: order.isBuy, px: level.px, sz: take, oid, cloid: order.cloid,
      crossed: true, hash, time: ctx.now(),
    });
    announceFill(ctx, user, fill);
    filled += take;
    notional += F.mul(level.px, take, "half-up");
  }
  const remaining = sz - filled;
  const rests = remaining > 0n && (tif === "Gtc" || tif === "Alo");
  // The order is announced once, in its state after matching: the venue never shows a taker as open.
  const status = rests ? "open" : filled > 0n ? "filled" : "canceled";
  // A canceled order keeps the size it had left, as the venue shows it (what was canceled, not filled).
  const left = rests || status === "canceled" ? remaining : 0n;
  ctx.repo.updateOrder(oid, left, status, ctx.now());
  const settled: Order = { ...order, sz: left, status, statusAt: ctx.now() };
  announceOrder(ctx, settled, false);
  if (filled > 0n) afterFill(ctx, settled);
  const cloid = order.cloid ? { cloid: order.cloid } : {};
  if (rests) return { resting: { oid, ...cloid } };
  if (filled === 0n) return { error: `Order could not immediately match against any resting orders. asset=${ctx.markets.byCoin(order.coin)!.asset}` };
  const avgPx = F.div(notional, filled, "half-up");
  return { filled: { totalSz: exact(filled), avgPx: px(avgPx), oid, ...cloid } };
}
