// Every order row of the vault's account follows the exchange's status: once a reconciliation pass has
// run since the exchange changed it, the row says what the venue says.
import { iso, plural } from "./money-checks.js";
import type { DaemonRecords, ExchangeRecords, InvariantResult } from "./records.js";

/** The daemon's status for a venue status (DESIGN section 6). */
export function rowStatusOf(venue: string): string {
  if (venue === "open" || venue === "triggered") return "resting";
  if (venue === "filled") return "filled";
  if (/rejected$/i.test(venue)) return "rejected";
  return "canceled";
}

export function checkOrders(exchange: ExchangeRecords, daemon: DaemonRecords): InvariantResult {
  const base = { invariant: "orders" as const };
  if (!exchange.orders) return { ...base, status: "not-checked", checked: 0, summary: "the exchange's order history was not read" };
  const venue = new Map(exchange.orders.map((o) => [o.oid, o]));
  let checked = 0;
  let recent = 0;
  for (const row of daemon.orders) {
    const v = venue.get(row.orderId);
    // Older than the venue keeps, or changed after the last pass began: nothing to hold the row to yet.
    if (!v) continue;
    if (v.statusTimestamp >= daemon.ordersSettledBefore) {
      recent++;
      continue;
    }
    checked++;
    const want = rowStatusOf(v.status);
    const got = row.status === "submitted" ? "resting" : row.status;
    if (want !== got) {
      return {
        ...base, status: "broken", checked, summary: "an order row does not follow the exchange's status",
        break: { what: `order ${row.orderId} (the exchange: ${v.status} at ${iso(v.statusTimestamp)})`, expected: want, actual: row.status },
      };
    }
  }
  const waiting = recent > 0 ? ` (${recent} more changed at the exchange too recently for the order sync to have followed)` : "";
  return { ...base, status: "holds", checked, summary: `${plural(checked, "order row")}, each as the exchange has it${waiting}` };
}
