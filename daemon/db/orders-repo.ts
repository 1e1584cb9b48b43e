// The orders table: written before the exchange call (with the idempotency key, in one commit) and
// updated after, so a crash or timeout mid-call leaves a row to reconcile, never a lost order.
import type { Executor } from "./store.js";
import type { NewOrder, OrderRow, OrderStatus } from "./schema.js";

/**
 * Inserts the order unless another with its Idempotency-Key is stored, committed meanwhile by
 * another request (on any daemon): false then, and the caller answers from that one.
 */
export async function insertOrder(db: Executor, row: NewOrder): Promise<boolean> {
  const r = await db.insertInto("orders").values(row)
    .onConflict((oc) => oc.columns(["user", "idempotency_key"]).where("idempotency_key", "is not", null).doNothing())
    .executeTakeFirst();
  return Number(r.numInsertedOrUpdatedRows ?? 0n) > 0;
}

export function findByIdempotencyKey(db: Executor, user: string, key: string): Promise<OrderRow | undefined> {
  return db.selectFrom("orders").selectAll().where("user", "=", user).where("idempotency_key", "=", key).executeTakeFirst();
}

export function findByCloid(db: Executor, cloid: string): Promise<OrderRow | undefined> {
  return db.selectFrom("orders").selectAll().where("cloid", "=", cloid).executeTakeFirst();
}

export function findByOid(db: Executor, account: string, oid: number): Promise<OrderRow | undefined> {
  return db.selectFrom("orders").selectAll().where("account", "=", account).where("oid", "=", oid).executeTakeFirst();
}

export interface OrderUpdate {
  status: OrderStatus;
  oid?: number | null;
  filled_size?: string | null;
  average_price?: string | null;
  error_code?: string | null;
  error_message?: string | null;
  protection?: string | null;
}

export async function updateOrder(db: Executor, cloid: string, update: OrderUpdate, now: number): Promise<void> {
  await db.updateTable("orders").set({ ...update, updated_at: now }).where("cloid", "=", cloid).execute();
}

/** Frees an idempotency key whose order provably never reached the exchange, so a retry places anew. */
export async function releaseIdempotencyKey(db: Executor, cloid: string, now: number): Promise<void> {
  await db.updateTable("orders").set({ idempotency_key: null, updated_at: now }).where("cloid", "=", cloid).execute();
}

/** Orders whose outcome the daemon does not know yet (crash or timeout mid-call). */
export function inDoubt(db: Executor, olderThan: number): Promise<OrderRow[]> {
  return db
    .selectFrom("orders")
    .selectAll()
    .where("status", "in", ["pending", "unknown"])
    .where("updated_at", "<=", olderThan)
    .orderBy("id")
    .limit(100)
    .execute();
}

/** A vault's orders whose outcome is not known yet (few: read before the vault's next close order). */
export function inDoubtOfVault(db: Executor, vault: string): Promise<OrderRow[]> {
  return db
    .selectFrom("orders")
    .selectAll()
    .where("status", "in", ["pending", "unknown"])
    .where("vault_address", "=", vault)
    .orderBy("id")
    .execute();
}

/** Orders the daemon last saw open at the exchange (oldest first), for the order sync to compare. */
export function restingOrders(db: Executor, limit: number): Promise<Array<{ account: string; oid: number }>> {
  return db
    .selectFrom("orders")
    .select(["account", "oid"])
    .where("status", "=", "resting")
    .where("oid", "is not", null)
    .orderBy("id")
    .limit(limit)
    .execute() as Promise<Array<{ account: string; oid: number }>>;
}

/**
 * Stores the final state of an order the row still shows resting. Only a resting row changes, so a
 * second writer with the same news (another pass, another daemon) changes nothing: true when it did.
 */
export async function settleResting(db: Executor, account: string, oid: number, update: OrderUpdate, now: number): Promise<boolean> {
  const r = await db.updateTable("orders").set({ ...update, updated_at: now })
    .where("account", "=", account).where("oid", "=", oid).where("status", "=", "resting")
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** How many orders are in each status (statuses with no order are absent). */
export function countOrdersByStatus(db: Executor): Promise<Array<{ key: string; n: number }>> {
  return db.selectFrom("orders").select(["status as key", (eb) => eb.fn.countAll<number>().as("n")]).groupBy("status").execute();
}
