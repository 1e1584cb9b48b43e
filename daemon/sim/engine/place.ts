// Placing one limit order: Hyperliquid's validation order (tick, size, minimum value unless the order
// closes the whole position, reduce-only, ALO/IOC rules, margin), then taking liquidity from the
// synthetic book up to the limit price, then resting the remainder (GTC/ALO) or dropping it (IOC).
// A trigger order is handed to triggers.ts, which checks and records it; when it fires it is matched
// as any order (order-match.ts). Every order that names a valid asset gets an oid and a stored status,
// rejections included, so orderStatus by cloid can settle an in-doubt order.
import { isValidPrice, isValidSize } from "../../lib/decimal.js";
import { F, abs, min } from "../num.js";
import type { OrderWire } from "../wire.js";
import type { OrderStatus } from "../types.js";
import { buildBook, crossingLevels } from "./book.js";
import { markOf, type EngineCtx } from "./context.js";
import { hasMargin, matchOrder, record, type OrderResult, type Placement } from "./order-match.js";
import { announceOrder } from "./orders.js";
import { afterFill, placeTrigger, type TriggerPlacement } from "./triggers.js";

export type { OrderResult } from "./order-match.js";

function reject(p: Placement, message: string, status: OrderStatus): OrderResult {
  if ("limit" in p.w.t) announceOrder(p.ctx, record(p, status, F.parse(p.w.s), p.w.t.limit.tif), false);
  return { error: `${message} asset=${p.w.a}` };
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
  const m = matchOrder(ctx, record(p, "open", sz, tif), p.hash, levels);
  if (m.filled > 0n) afterFill(ctx, m.settled);
  return m.result;
}
