// One `order` action, by its grouping: "na" places each order on its own; "normalTpsl" is an entry
// followed by its reduce-only TP/SL children, which wait for the entry to fill; "positionTpsl" is
// reduce-only TP/SLs that cover the whole position. Trigger orders the current mark has already
// crossed fire at the end of the action. The caller holds the transaction.
import type { OrderAction, OrderWire } from "../wire.js";
import type { EngineCtx } from "./context.js";
import { placeOrder, type OrderResult } from "./place.js";
import { activateChildren, isTriggerWire, settleTriggers } from "./triggers.js";

export type BatchStatus = OrderResult | "waitingForFill" | "waitingForTrigger";

/** The statuses of the action's orders, or the one error the venue answers for a malformed group. */
export function placeOrderAction(ctx: EngineCtx, user: string, action: OrderAction, hash: string): BatchStatus[] | { error: string } {
  const refused = groupError(action);
  if (refused) return { error: refused };
  let statuses: BatchStatus[];
  if (action.grouping === "normalTpsl") statuses = placeWithChildren(ctx, user, action.orders, hash);
  else {
    const positionTpsl = action.grouping === "positionTpsl";
    statuses = action.orders.map((o) => placeOrder(ctx, user, o, hash, { positionTpsl }));
  }
  for (const a of new Set(action.orders.map((o) => o.a))) {
    const market = ctx.markets.byAsset(a);
    if (market) settleTriggers(ctx, market);
  }
  return statuses;
}

/** Checks done on the whole batch before any order is placed (sim wording). */
function groupError(action: OrderAction): string | undefined {
  const [entry, ...children] = action.orders;
  if (action.grouping === "positionTpsl") {
    if (!action.orders.every((o) => isTriggerWire(o) && o.r)) return "positionTpsl orders must be reduce-only trigger orders.";
    return undefined;
  }
  if (action.grouping !== "normalTpsl") return undefined;
  if (!entry || isTriggerWire(entry) || children.length === 0) {
    return "normalTpsl needs an entry order followed by its TP/SL trigger orders.";
  }
  const fits = (c: OrderWire) => isTriggerWire(c) && c.r && c.a === entry.a && c.b !== entry.b;
  if (!children.every(fits)) return "TP/SL orders of a normalTpsl group must be reduce-only triggers on the entry's asset and opposite side.";
  return undefined;
}

/** The entry first; its children answer waitingForFill until it fills (waitingForTrigger once it has). */
function placeWithChildren(ctx: EngineCtx, user: string, orders: OrderWire[], hash: string): BatchStatus[] {
  const [entryWire, ...childWires] = orders as [OrderWire, ...OrderWire[]];
  const entry = placeOrder(ctx, user, entryWire, hash);
  const parentOid = "resting" in entry ? entry.resting.oid : "filled" in entry ? entry.filled.oid : undefined;
  if (parentOid === undefined) return [entry, ...childWires.map((c) => ({ error: `Entry order was not placed. asset=${c.a}` }))];
  const children = childWires.map((c) => placeOrder(ctx, user, c, hash, { parentOid }));
  const entryFilled = ctx.repo.getOrder(parentOid)!.status === "filled";
  if (entryFilled) activateChildren(ctx, parentOid);
  return [entry, ...children.map((c): BatchStatus => ("error" in c ? c : entryFilled ? "waitingForTrigger" : "waitingForFill"))];
}
