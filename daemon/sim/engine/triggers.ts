// Trigger (TP/SL) orders: placed off the book, they watch the mark and fire when it crosses their
// trigger price (sell stop-loss / buy take-profit: mark <= triggerPx; sell take-profit / buy
// stop-loss: mark >= triggerPx). A fired market trigger takes the book as an IOC bounded by its
// order price `p`; a fired limit trigger is a GTC limit order at `p`. Both keep their oid.
// The caller holds the transaction.
import { isValidPrice, isValidSize } from "../../lib/decimal.js";
import { F, abs, min } from "../num.js";
import type { Market, Order, TriggerSpec } from "../types.js";
import type { OrderWire } from "../wire.js";
import { buildBook, crossingLevels } from "./book.js";
import { markOf, syntheticHash, type EngineCtx } from "./context.js";
import { announceOrder, changeOrder } from "./orders.js";
import { hasMargin, matchOrder, record, type OrderResult, type Placement } from "./order-match.js";

export interface TriggerPlacement {
  /** grouping positionTpsl: attached to the position (size 0: the whole position when it fires). */
  positionTpsl?: boolean;
  /** A normalTpsl child: it waits for this entry to fill before it watches the mark. */
  parentOid?: number;
}

type TriggerWire = { isMarket: boolean; triggerPx: string; tpsl: "tp" | "sl" };

/** Whether the order fires on a mark at or above its trigger (otherwise at or below). */
export function firesAbove(o: { isBuy: boolean; trigger?: TriggerSpec }): boolean {
  return (o.trigger!.tpsl === "tp") !== o.isBuy;
}

function crosses(o: Order, mark: bigint): boolean {
  return firesAbove(o) ? mark >= o.trigger!.px : mark <= o.trigger!.px;
}

/** Records a trigger order that failed validation (so orderStatus by cloid can settle it). */
function rejectTrigger(p: Placement, spec: TriggerSpec, message: string, status: Order["status"]): OrderResult {
  const o = record(p, status, F.parse(p.w.s), spec.isMarket ? "FrontendMarket" : "Gtc", spec);
  announceOrder(p.ctx, o, false);
  return { error: `${message} asset=${p.w.a}` };
}

/** Validates and records a trigger order; it fires later (fireTriggers), never here. */
export function placeTrigger(p: Placement, t: TriggerWire, opts: TriggerPlacement): OrderResult {
  const { ctx, user, w, market } = p;
  const spec: TriggerSpec = {
    px: F.parse(t.triggerPx), tpsl: t.tpsl, isMarket: t.isMarket, state: opts.parentOid === undefined ? "untriggered" : "waiting",
    positionTpsl: opts.positionTpsl ?? false, parentOid: opts.parentOid ?? null,
  };
  if (!isValidPrice(w.p, market.szDecimals) || !isValidPrice(t.triggerPx, market.szDecimals) || spec.px === 0n) {
    return rejectTrigger(p, spec, "Price must be divisible by tick size.", "tickRejected");
  }
  const wholePosition = spec.positionTpsl && F.parse(w.s) === 0n;
  if (!wholePosition && !isValidSize(w.s, market.szDecimals)) return rejectTrigger(p, spec, "Order has invalid size.", "rejected");
  // A market trigger is worth what it fires at; its `p` is only the worst price it accepts.
  const valuePx = spec.isMarket ? spec.px : F.parse(w.p);
  const szi = ctx.repo.getPosition(user, market.name).szi;
  const dust = ctx.cfg.dustClosesExempt && w.r && szi !== 0n && szi > 0n !== w.b && F.parse(w.s) >= abs(szi);
  if (!wholePosition && !dust && F.mul(valuePx, F.parse(w.s), "down") < F.parse(ctx.cfg.minOrderValueUsd)) {
    return rejectTrigger(p, spec, `Order must have minimum value of $${ctx.cfg.minOrderValueUsd}.`, "minTradeNtlRejected");
  }
  // A normalTpsl child is checked against the position its entry opens, when it fires.
  if (w.r && spec.state === "untriggered" && (szi === 0n || szi > 0n === w.b)) {
    return rejectTrigger(p, spec, "Reduce only order would increase position.", "reduceOnlyRejected");
  }
  const order = record(p, "open", F.parse(w.s), spec.isMarket ? "FrontendMarket" : "Gtc", spec);
  if (spec.state === "untriggered") announceOrder(ctx, order, false);
  return { resting: { oid: order.oid, ...(w.c ? { cloid: w.c } : {}) } };
}

/** Fires one trigger order at `mark`: announced "triggered", then executed as its order type says. */
function fire(ctx: EngineCtx, o: Order, market: Market, mark: bigint): void {
  const now = ctx.now();
  announceOrder(ctx, { ...o, status: "triggered", statusAt: now }, false);
  ctx.repo.setTriggerState(o.oid, "triggered");
  const fired: Order = { ...o, trigger: { ...o.trigger!, state: "triggered" } };
  const szi = ctx.repo.getPosition(o.user, o.coin).szi;
  // A position TP/SL of size 0 is for the whole position; one with a size stays that size (capped below).
  let sz = o.trigger!.positionTpsl && o.sz === 0n ? abs(szi) : o.sz;
  if (o.reduceOnly) {
    if (szi === 0n || szi > 0n === o.isBuy) {
      changeOrder(ctx, fired, o.sz, "reduceOnlyCanceled");
      return;
    }
    sz = min(sz, abs(szi)); // never flips the position
  } else if (!hasMargin(ctx, o.user, market, o.isBuy, o.limitPx, sz)) {
    changeOrder(ctx, fired, o.sz, "marginCanceled");
    return;
  }
  if (sz !== o.sz) ctx.repo.updateOrder(o.oid, sz, "open", now);
  const levels = crossingLevels(buildBook(mark, market, ctx.cfg.book), o.isBuy, o.limitPx);
  const m = matchOrder(ctx, { ...fired, sz }, syntheticHash(`trigger:${o.oid}`), levels);
  if (m.filled > 0n) afterFill(ctx, m.settled);
}

/**
 * Settles a coin's trigger orders at its current mark: every untriggered order the mark has crossed
 * fires (oldest first). A fill's consequences for the others (siblings, a closed position) are
 * settled by afterFill as it happens; the flat-position check stays for files an older sim saved.
 */
export function settleTriggers(ctx: EngineCtx, market: Market): void {
  const mark = markOf(ctx, market);
  for (const pending of ctx.repo.pendingTriggersOn(market.name)) {
    // An earlier order's fill may have canceled this one (a sibling) or closed its position.
    const o = ctx.repo.getOrder(pending.oid)!;
    if (o.status !== "open" || o.trigger?.state !== "untriggered") continue;
    if (o.trigger.positionTpsl && ctx.repo.getPosition(o.user, o.coin).szi === 0n) {
      changeOrder(ctx, o, o.sz, "reduceOnlyCanceled");
      continue;
    }
    if (crosses(o, mark)) fire(ctx, o, market, mark);
  }
}

/** Starts a filled entry's waiting TP/SL children watching the mark. */
export function activateChildren(ctx: EngineCtx, parentOid: number): void {
  for (const c of ctx.repo.childrenOf(parentOid)) {
    if (c.status !== "open" || c.trigger?.state !== "waiting") continue;
    ctx.repo.setTriggerState(c.oid, "untriggered");
    announceOrder(ctx, { ...c, trigger: { ...c.trigger, state: "untriggered" } }, false);
  }
}

/** Cancels an entry's children that never started (the entry was canceled before it filled). */
export function cancelWaitingChildren(ctx: EngineCtx, parentOid: number): void {
  for (const c of ctx.repo.childrenOf(parentOid)) {
    if (c.status === "open" && c.trigger?.state === "waiting") changeOrder(ctx, c, c.sz, "canceled");
  }
}

/**
 * After an order filled: a filled entry starts its children, a filled child cancels its siblings, and
 * a position the fill left flat loses its position TP/SLs. All at once, so a sibling that comes
 * earlier in settleTriggers' pass is not left open until the next mark move.
 */
export function afterFill(ctx: EngineCtx, o: Order): void {
  if (o.status === "filled") activateChildren(ctx, o.oid);
  const parent = o.trigger?.parentOid;
  if (parent !== null && parent !== undefined) {
    for (const s of ctx.repo.childrenOf(parent)) {
      if (s.oid !== o.oid && s.status === "open") changeOrder(ctx, s, s.sz, "siblingFilledCanceled");
    }
  }
  if (ctx.repo.getPosition(o.user, o.coin).szi === 0n) dropPositionTpsls(ctx, o);
}

/**
 * A flat position's TP/SLs: siblings of the position TP/SL whose fill closed it, or, closed by any
 * other order, reduce-only orders with nothing left to reduce (the venue's two statuses for these).
 */
function dropPositionTpsls(ctx: EngineCtx, filled: Order): void {
  const status = filled.trigger?.positionTpsl ? "siblingFilledCanceled" : "reduceOnlyCanceled";
  for (const o of ctx.repo.openOrdersOf(filled.user)) {
    if (o.coin === filled.coin && o.oid !== filled.oid && o.trigger?.positionTpsl) changeOrder(ctx, o, o.sz, status);
  }
}

/** Whether an order wire is a trigger order. */
export const isTriggerWire = (w: OrderWire): boolean => "trigger" in w.t;
