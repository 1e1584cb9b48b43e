// What the stop keeper does with one protective trigger, as pure functions over what the exchange
// shows: the account's open orders and positions, the mark, and (once the trigger is no longer open)
// its status. A market trigger that fired and did not close what it was to close is "fired": the
// keeper closes the rest at market. Everything else ends the stop or leaves it armed.
import type { StopRow } from "../db/schema.js";
import type { OpenOrderState, OrderLookup, PositionState } from "../exchange/types.js";
import { compareDecimal, subtractDecimal } from "../lib/decimal.js";
import { firesAbove } from "../trading/order-rules.js";

export interface AccountView {
  open: OpenOrderState[];
  positions: PositionState[];
  mids: Record<string, string>;
}

/** While the trigger is open at the exchange: nothing, note its position or order id, or cancel it (flat). */
export type OpenStep =
  | { kind: "wait" }
  | { kind: "note"; oid: number | null; positionSeen: boolean }
  | { kind: "cancel"; order: OpenOrderState }
  | { kind: "gone" };

/** Once it is not open: it ended (how), or it fired without filling (what is left to close). */
export type Ending = { kind: "done"; outcome: string } | { kind: "fired"; size: string; reason: string } | { kind: "unknown" };

const unsigned = (size: string) => size.replace(/^-/, "");
const minDecimal = (a: string, b: string) => (compareDecimal(a, b) <= 0 ? a : b);

/** The open position this stop protects: a sell trigger a long, a buy trigger a short. */
export function protectedPosition(s: StopRow, positions: PositionState[]): PositionState | undefined {
  return positions.find((p) => p.symbol === s.symbol && compareDecimal(p.size, "0") !== 0 && p.size.startsWith("-") === (s.side === "buy"));
}

/** The trigger among the open orders (by cloid, or order id), and whether it still waits for its entry to fill. */
function findOpen(s: StopRow, open: OpenOrderState[]): { order: OpenOrderState; waiting: boolean } | undefined {
  const same = (o: OpenOrderState) => (s.oid !== null && o.oid === s.oid) || (o.cloid !== null && o.cloid === s.cloid);
  for (const o of open) {
    if (same(o)) return { order: o, waiting: false };
    const child = o.children.find(same);
    if (child) return { order: child, waiting: true };
  }
  return undefined;
}

/**
 * A trigger open on its own has had its position: a reduce-only trigger is refused without one, and an
 * entry's child stops waiting only when the entry fills. So once that position is flat it goes. (The
 * positions are read after the orders: a child seen active was filled into the positions read.)
 */
export function whileOpen(s: StopRow, view: AccountView): OpenStep {
  const found = findOpen(s, view.open);
  if (!found) return { kind: "gone" };
  if (found.waiting) return { kind: "wait" };
  if (protectedPosition(s, view.positions) === undefined) return { kind: "cancel", order: found.order };
  if (s.position_seen === 0 || s.oid === null) return { kind: "note", oid: found.order.oid, positionSeen: true };
  return { kind: "wait" };
}

/** Whether the mark is at or past the trigger price, on the side it fires on. */
export function crossed(s: Pick<StopRow, "kind" | "side" | "trigger_price">, mid: string | undefined): boolean {
  if (mid === undefined) return false;
  const c = compareDecimal(mid, s.trigger_price);
  return firesAbove(s.kind, s.side === "buy") ? c >= 0 : c <= 0;
}

/** Statuses that end a trigger for a reason that needs no close from the daemon. */
const ENDED_ON_PURPOSE = new Set(["filled", "siblingFilledCanceled", "reduceOnlyCanceled", "liquidatedCanceled", "vaultClosedCanceled", "delistedCanceled"]);

export function afterClose(s: StopRow, lookup: OrderLookup, view: AccountView): Ending {
  if (!lookup.found) return { kind: "unknown" };
  if (lookup.status === "open") return { kind: "unknown" };
  if (ENDED_ON_PURPOSE.has(lookup.status)) return { kind: "done", outcome: lookup.status };
  const position = protectedPosition(s, view.positions);
  const fired = lookup.order.trigger?.triggered === true || lookup.status === "triggered" || crossed(s, view.mids[s.symbol]);
  // A limit trigger that fired rests as a limit order, as on the venue; one that ended otherwise was canceled.
  if (s.market === 0 || !fired || !position) return { kind: "done", outcome: lookup.status };
  const filled = subtractDecimal(lookup.order.origSize, lookup.order.size);
  const left = subtractDecimal(s.size, filled);
  if (compareDecimal(left, "0") <= 0) return { kind: "done", outcome: "filled" };
  const reason = lookup.status === "canceled" || lookup.status === "triggered"
    ? "it fired but the market order found no fill within its price bound"
    : `it fired but the exchange answered ${lookup.status}`;
  return { kind: "fired", size: minDecimal(left, unsigned(position.size)), reason };
}
