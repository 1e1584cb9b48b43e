// An entry's stop-loss and take-profit (DESIGN section 6): sent with the entry as the venue's
// normalTpsl group in one signed action, so there is no moment when the entry has filled and its
// protection is not yet placed, and nothing for the daemon to place later (the venue starts the
// children when the entry fills, and cancels the other when one fills). What each child was
// answered is kept on the entry's row, for the answer and for a retry with its Idempotency-Key.
import type { OrderRow } from "../db/schema.js";
import type { Cloid, OpenOrderState, TpslChildOutcome, TriggerKind } from "../exchange/types.js";
import type { CheckedOrder } from "./order-rules.js";

/**
 * Where a child stands: waiting for the entry to fill ("waitingForFill": it has no order id yet),
 * waiting for its trigger once the entry filled ("waitingForTrigger" or "resting", with its order id
 * when the venue gave one), filled at once, refused by the venue ("rejected", with its reason), or
 * not known because the action's answer was lost ("unknown": GET /api/orders tells).
 */
export type ProtectionStatus = "waitingForFill" | "waitingForTrigger" | "resting" | "filled" | "rejected" | "unknown";

export interface ProtectionState {
  kind: TriggerKind;
  /** The trigger price, a decimal string. */
  price: string;
  status: ProtectionStatus;
  orderId?: number;
  error?: string;
}

/** What the row keeps: the answer's fields and the child's cloid. */
export interface ProtectionRecord extends ProtectionState {
  cloid: Cloid;
}

/** Each child before the exchange answered: its cloid, its status unknown until it does. */
export function protectionRecords(children: CheckedOrder[], newCloid: () => Cloid): ProtectionRecord[] {
  return children.map((c) => ({ kind: c.trigger!.kind, price: c.trigger!.price, status: "unknown", cloid: newCloid() }));
}

/** The records with the exchange's answer for each child, in the order they were sent. */
export function settleProtection(records: ProtectionRecord[], answers: TpslChildOutcome[]): ProtectionRecord[] {
  return records.map((r, i) => {
    const a = answers[i];
    if (!a) return r;
    if (a.kind === "rejected") return { ...r, status: "rejected", error: a.reason };
    if (a.kind === "waitingForFill" || a.kind === "waitingForTrigger") return { ...r, status: a.kind };
    return { ...r, status: a.kind, orderId: a.oid };
  });
}

/** The answer's protection from a row's record, without the cloids; undefined for an order without any. */
export function protectionOf(row: Pick<OrderRow, "protection">): ProtectionState[] | undefined {
  if (!row.protection) return undefined;
  return (JSON.parse(row.protection) as ProtectionRecord[]).map(({ cloid: _cloid, ...state }) => state);
}

/** A resting entry's children, as the venue lists them until the entry fills. */
export function waitingProtection(order: OpenOrderState): ProtectionState[] | undefined {
  const children = order.children.flatMap((c) => (c.trigger ? [{ kind: c.trigger.kind, price: c.trigger.price, status: "waitingForFill" as const }] : []));
  return children.length > 0 ? children : undefined;
}
