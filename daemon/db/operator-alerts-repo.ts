// The operator's alerts now firing (monitor/alert-monitor.ts). Claiming a start is an insert and
// claiming a clear a delete, each one statement: of two daemons that see the same change, one wins.
import type { Executor } from "./store.js";
import type { OperatorAlertRow } from "./schema.js";

/** True when this call recorded the alert (it was not firing). */
export async function startAlert(db: Executor, row: OperatorAlertRow): Promise<boolean> {
  const r = await db.insertInto("operator_alerts").values(row).onConflict((oc) => oc.column("key").doNothing()).returning("key").executeTakeFirst();
  return r !== undefined;
}

/** True when this call removed the alert (it was firing). */
export async function clearAlert(db: Executor, key: string): Promise<boolean> {
  const r = await db.deleteFrom("operator_alerts").where("key", "=", key).executeTakeFirst();
  return Number(r.numDeletedRows) === 1;
}

/** Alerts firing about `daemon`, and the shared ones when `shared`. */
export function firingAlerts(db: Executor, daemon: string, shared: boolean): Promise<OperatorAlertRow[]> {
  return db.selectFrom("operator_alerts").selectAll()
    .where((eb) => (shared ? eb.or([eb("daemon", "=", daemon), eb("daemon", "is", null)]) : eb("daemon", "=", daemon)))
    .execute();
}
