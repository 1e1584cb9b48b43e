// Which orders are protective triggers, as the stop keeper (vaults/stop-keeper.ts) watches them: a
// reduce-only trigger sent alone, and an entry's stop-loss and take-profit. Each is stored with its
// order in the order's commit, and told what the exchange answered.
import type { Executor } from "../db/store.js";
import type { NewStop, OrderRow } from "../db/schema.js";
import * as stops from "../db/stops-repo.js";
import type { CheckedOrder } from "./order-rules.js";
import type { ProtectionRecord } from "./protection.js";

type Placed = Pick<OrderRow, "cloid" | "user" | "account" | "vault_address" | "symbol" | "created_at">;

function stopRow(row: Placed, cloid: string, o: CheckedOrder, positionSeen: boolean): NewStop {
  const t = o.trigger!;
  return {
    cloid, user: row.user, account: row.account, vault_address: row.vault_address, symbol: row.symbol,
    kind: t.kind, side: o.isBuy ? "buy" : "sell", trigger_price: t.price, size: o.size, market: t.market ? 1 : 0,
    oid: null, state: "armed", outcome: null, position_seen: positionSeen ? 1 : 0, reason: null, close_cloid: null,
    created_at: row.created_at, updated_at: row.created_at,
  };
}

/**
 * The stops an order carries. A reduce-only trigger needs a position to be accepted, so its position
 * counts as seen; an entry's children protect a position that exists only once the entry fills.
 */
export function stopsOf(order: CheckedOrder, row: Placed, children: ProtectionRecord[]): NewStop[] {
  if (order.trigger) return order.reduceOnly ? [stopRow(row, row.cloid, order, true)] : [];
  return (order.children ?? []).map((c, i) => stopRow(row, children[i]!.cloid, c, false));
}

/** What the exchange answered, for the order's stops: an order id, or a refusal that ends them. */
export async function settleStops(
  db: Executor, order: CheckedOrder, cloid: string, answer: { oid: number } | { rejected: string }, children: ProtectionRecord[] | null, now: number,
): Promise<void> {
  if (order.trigger) return order.reduceOnly ? stops.placed(db, cloid, answer, now) : undefined;
  for (const c of children ?? []) {
    if ("rejected" in answer) await stops.placed(db, c.cloid, answer, now);
    else if (c.status === "rejected") await stops.placed(db, c.cloid, { rejected: c.error ?? "rejected" }, now);
    else if (c.orderId !== undefined) await stops.placed(db, c.cloid, { oid: c.orderId }, now);
  }
}
