// Order state changes and fills as the outside world sees them: every status change goes through
// here so it is stored and announced (orderUpdates, the coin's book, nonUserCancel) in one place.
// The caller holds the transaction (ctx.tx), which publishes the events once it commits.
import { exact } from "../num.js";
import type { FillRecord, Order, OrderStatus } from "../types.js";
import type { EngineCtx } from "./context.js";

/** The sim's side of every trade: it is the only counterparty (trades' `users`). */
export const SIM_COUNTERPARTY = "0x0000000000000000000000000000000000000000";

/** Statuses the venue reports to the user's userEvents as cancels the user did not ask for. */
const NON_USER_CANCELS: ReadonlySet<OrderStatus> = new Set(["liquidatedCanceled", "marginCanceled", "reduceOnlyCanceled", "scheduledCancel"]);

/** openOrders' element (the venue's OpenOrderSchema), also the `order` of orderUpdates. */
export function openOrderWire(o: Order) {
  return {
    coin: o.coin, side: o.isBuy ? "B" : "A", limitPx: exact(o.limitPx), sz: exact(o.sz), oid: o.oid,
    timestamp: o.createdAt, origSz: exact(o.origSz), ...(o.cloid ? { cloid: o.cloid } : {}),
    ...(o.reduceOnly ? { reduceOnly: true } : {}),
  };
}

/** Announces an order's current state (after insertOrder or updateOrder). */
export function announceOrder(ctx: EngineCtx, o: Order, wasResting: boolean): void {
  ctx.emit({
    kind: "orderUpdates",
    user: o.user,
    updates: [{ order: openOrderWire(o), status: o.status, statusTimestamp: o.statusAt }],
  });
  if (wasResting || o.status === "open") ctx.emit({ kind: "book", coin: o.coin });
  if (NON_USER_CANCELS.has(o.status)) {
    ctx.emit({ kind: "userEvent", user: o.user, event: { nonUserCancel: [{ coin: o.coin, oid: o.oid }] } });
  }
}

/** Stores a new size and status for an order and announces it; returns the updated order. */
export function changeOrder(ctx: EngineCtx, o: Order, sz: bigint, status: OrderStatus): Order {
  const now = ctx.now();
  ctx.repo.updateOrder(o.oid, sz, status, now);
  const next: Order = { ...o, sz, status, statusAt: now };
  announceOrder(ctx, next, o.status === "open");
  return next;
}

/** Announces a fill to its user and as a public trade against the sim (or the counterparty named). */
export function announceFill(ctx: EngineCtx, user: string, fill: FillRecord, counterparty = SIM_COUNTERPARTY): void {
  ctx.emit({ kind: "fills", user, fills: [{ ...fill }] });
  // The aggressor's side names the trade; a resting user order that the mark crossed was the maker.
  const userBuys = fill.side === "B";
  const side = fill.crossed ? fill.side : userBuys ? "A" : "B";
  ctx.emit({
    kind: "trades",
    coin: fill.coin,
    trades: [{
      coin: fill.coin, side, px: fill.px, sz: fill.sz, time: fill.time, hash: fill.hash, tid: fill.tid,
      users: userBuys ? [user, counterparty] : [counterparty, user],
    }],
  });
}
