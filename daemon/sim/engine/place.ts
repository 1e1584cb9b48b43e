// Placing one limit order: Hyperliquid's validation order (tick, size, minimum value unless the order
// closes the whole position, reduce-only, ALO/IOC rules, margin), then taking liquidity from the
// synthetic book up to the limit price, then resting the remainder (GTC/ALO) or dropping it (IOC).
// Every order that names a valid asset gets an oid and a stored status, rejections included, so
// orderStatus by cloid can settle an in-doubt order.
import { isValidPrice, isValidSize } from "../../lib/decimal.js";
import { F, abs, max, min, px, exact } from "../num.js";
import type { OrderWire } from "../wire.js";
import type { Market, Order, OrderStatus } from "../types.js";
import { buildBook, crossingLevels } from "./book.js";
import { markOf, type EngineCtx } from "./context.js";
import { applyFill } from "./fills.js";
import { accountView, freeCrossMargin, leverageOf } from "./margin.js";
import { announceFill, announceOrder } from "./orders.js";

export type OrderResult =
  | { resting: { oid: number; cloid?: string } }
  | { filled: { totalSz: string; avgPx: string; oid: number; cloid?: string } }
  | { error: string };

interface Placement {
  ctx: EngineCtx;
  user: string;
  w: OrderWire;
  market: Market;
  hash: string;
}

function record(p: Placement, status: OrderStatus, remaining: bigint, tif: Order["tif"]): Order {
  const now = p.ctx.now();
  const order: Order = {
    oid: p.ctx.nextOid(), user: p.user, coin: p.market.name, isBuy: p.w.b, limitPx: F.parse(p.w.p), sz: remaining,
    origSz: F.parse(p.w.s), tif, reduceOnly: p.w.r, cloid: p.w.c ?? null, status, createdAt: now, statusAt: now,
  };
  p.ctx.repo.insertOrder(order);
  return order;
}

function reject(p: Placement, message: string, status: OrderStatus): OrderResult {
  if ("limit" in p.w.t) announceOrder(p.ctx, record(p, status, F.parse(p.w.s), p.w.t.limit.tif), false);
  return { error: `${message} asset=${p.w.a}` };
}

/**
 * Margin left for new orders after positions and resting orders (which reserve margin too). Cross
 * margin pays for every order: an isolated position's margin is moved out of it when the order fills.
 */
function hasMargin(p: Placement, limitPx: bigint, sz: bigint): boolean {
  const { ctx, user, market } = p;
  const view = accountView(ctx.repo, ctx.markets, user, ctx.cfg.defaultLeverage);
  const szi = ctx.repo.getPosition(user, market.name).szi;
  const increase = max(0n, abs(szi + (p.w.b ? sz : -sz)) - abs(szi));
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

export function placeOrder(ctx: EngineCtx, user: string, w: OrderWire, hash: string): OrderResult {
  const market = ctx.markets.byAsset(w.a);
  if (!market) return { error: `Invalid asset. asset=${w.a}` };
  const p: Placement = { ctx, user, w, market, hash };
  if (!("limit" in w.t)) return { error: `Trigger orders are not supported by the sim. asset=${w.a}` };
  const tif = w.t.limit.tif;
  // Before any rejection: a rejected order is recorded with its cloid, which must stay unique.
  if (w.c && ctx.repo.orderByCloid(user, w.c)) return { error: `Duplicate cloid. asset=${w.a}` };
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
  if (!w.r && !hasMargin(p, limitPx, sz)) return reject(p, "Insufficient margin to place order.", "perpMarginRejected");
  return execute(p, tif, sz, levels);
}

function execute(p: Placement, tif: Order["tif"], sz: bigint, levels: { px: bigint; sz: bigint }[]): OrderResult {
  const { ctx, user, w, market } = p;
  const order = record(p, "open", sz, tif);
  const oid = order.oid;
  let filled = 0n;
  let notional = 0n;
  for (const level of levels) {
    const take = min(sz - filled, level.sz);
    if (take <= 0n) break;
    const { record: fill } = applyFill(ctx.repo, ctx.cfg.fees, ctx.nextTid(), {
      user, coin: market.name, isBuy: w.b, px: level.px, sz: take, oid, cloid: w.c ?? null,
      crossed: true, hash: p.hash, time: ctx.now(),
    });
    announceFill(ctx, user, fill);
    filled += take;
    notional += F.mul(level.px, take, "half-up");
  }
  const remaining = sz - filled;
  const rests = remaining > 0n && (tif === "Gtc" || tif === "Alo");
  // The order is announced once, in its state after matching: the venue never shows a taker as open.
  const status = rests ? "open" : "filled";
  ctx.repo.updateOrder(oid, rests ? remaining : 0n, status, ctx.now());
  announceOrder(ctx, { ...order, sz: rests ? remaining : 0n, status, statusAt: ctx.now() }, false);
  const cloid = w.c ? { cloid: w.c } : {};
  if (rests) return { resting: { oid, ...cloid } };
  const avgPx = F.div(notional, filled, "half-up");
  return { filled: { totalSz: exact(filled), avgPx: px(avgPx), oid, ...cloid } };
}
