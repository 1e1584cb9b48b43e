// Matching a recorded order against the synthetic book, and the records and margin check both a
// placed order (place.ts) and a fired trigger order (triggers.ts) go through.
import { F, abs, max, min, px, exact } from "../num.js";
import type { OrderWire } from "../wire.js";
import type { Market, Order, OrderStatus, TriggerSpec } from "../types.js";
import type { BookLevel } from "./book.js";
import type { EngineCtx } from "./context.js";
import { applyFill } from "./fills.js";
import { accountView, freeCrossMargin, leverageOf } from "./margin.js";
import { announceFill, announceOrder } from "./orders.js";

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

/** A matched order's answer, its state after matching, and how much of it filled. */
export interface Matched {
  result: OrderResult;
  settled: Order;
  filled: bigint;
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
 * Takes liquidity for a recorded open order (`order.sz` is what it may fill) from the book levels it
 * crosses, then rests the remainder (GTC/ALO) or drops it (IOC, FrontendMarket). A fired trigger
 * order goes through here too, under its own oid. The caller settles what a fill means for the
 * account's trigger orders (triggers.ts afterFill), so matching needs nothing of triggers.
 */
export function matchOrder(ctx: EngineCtx, order: Order, hash: string, levels: BookLevel[]): Matched {
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
  const cloid = order.cloid ? { cloid: order.cloid } : {};
  if (rests) return { result: { resting: { oid, ...cloid } }, settled, filled };
  if (filled === 0n) return { result: { error: `Order could not immediately match against any resting orders. asset=${ctx.markets.byCoin(order.coin)!.asset}` }, settled, filled };
  const avgPx = F.div(notional, filled, "half-up");
  return { result: { filled: { totalSz: exact(filled), avgPx: px(avgPx), oid, ...cloid } }, settled, filled };
}
