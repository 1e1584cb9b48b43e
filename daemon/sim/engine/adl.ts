// Auto-deleveraging on demand (POST /sim/adl): (part of) a position closed at the mark against a
// synthetic underwater account, as the venue closes profitable positions against an account whose
// liquidation left it below zero. The sim never deleverages by itself. The fill is marked as the
// daemon's rule expects (docs/sim.md "Liquidations and auto-deleveraging"): `dir` "Auto-Deleveraging",
// and a `liquidation` naming the underwater account, not this one. The caller holds the transaction.
import { abs, exact } from "../num.js";
import type { FillRecord, Market, Order } from "../types.js";
import { markOf, syntheticHash, type EngineCtx } from "./context.js";
import { applyFill } from "./fills.js";
import { announceFill, announceOrder } from "./orders.js";

/** The underwater account every deleveraging in the sim serves (trades' `users`, `liquidation.liquidatedUser`). */
export const ADL_COUNTERPARTY = "0x00000000000000000000000000000000000000ad";

export interface Deleveraged {
  fill: FillRecord;
  /** The account's signed position in the coin afterwards. */
  position: bigint;
}

/** Closes `size` (default: all) of `user`'s position in `market` at the mark; an error when there is none or too little. */
export function autoDeleverage(ctx: EngineCtx, user: string, market: Market, size?: bigint): Deleveraged | { error: string } {
  const szi = ctx.repo.getPosition(user, market.name).szi;
  if (szi === 0n) return { error: `${user} has no ${market.name} position to deleverage` };
  const sz = size ?? abs(szi);
  if (sz > abs(szi)) return { error: `size ${exact(sz)} is more than the ${market.name} position of ${exact(abs(szi))}` };
  const now = ctx.now();
  const mark = markOf(ctx, market);
  const isBuy = szi < 0n;
  const order: Order = {
    oid: ctx.nextOid(), user, coin: market.name, isBuy, limitPx: mark, sz: 0n, origSz: sz, tif: "LiquidationMarket",
    reduceOnly: true, cloid: null, status: "filled", createdAt: now, statusAt: now,
  };
  ctx.repo.insertOrder(order);
  const tid = ctx.nextTid();
  const { record } = applyFill(ctx.repo, ctx.cfg.fees, tid, {
    user, coin: market.name, isBuy, px: mark, sz, oid: order.oid, cloid: null, crossed: false,
    hash: syntheticHash(`adl:${tid}`), time: now, dir: "Auto-Deleveraging", feeless: true,
    liquidation: { liquidatedUser: ADL_COUNTERPARTY, markPx: exact(mark), method: "backstop" },
  });
  announceFill(ctx, user, record, ADL_COUNTERPARTY);
  announceOrder(ctx, order, false);
  return { fill: record, position: ctx.repo.getPosition(user, market.name).szi };
}
