// The orders table: written before the exchange call (with the idempotency key, in one commit) and
// updated after, so a crash or timeout mid-call leaves a row to reconcile, never a lost order.
import type { Kysely } from "kysely";
import type { SyncExecutor } from "./database.js";
import type { Database, NewOrder, OrderRow, OrderStatus } from "./schema.js";

export function insertOrder(db: Kysely<Database>, x: SyncExecutor, row: NewOrder): void {
  x.run(db.insertInto("orders").values(row).compile());
}

export function findByIdempotencyKey(db: Kysely<Database>, x: SyncExecutor, user: string, key: string): OrderRow | undefined {
  return x.get(db.selectFrom("orders").selectAll().where("user", "=", user).where("idempotency_key", "=", key).compile());
}

export async function findByCloid(db: Kysely<Database>, cloid: string): Promise<OrderRow | undefined> {
  return db.selectFrom("orders").selectAll().where("cloid", "=", cloid).executeTakeFirst();
}

export async function findByOid(db: Kysely<Database>, account: string, oid: number): Promise<OrderRow | undefined> {
  return db.selectFrom("orders").selectAll().where("account", "=", account).where("oid", "=", oid).executeTakeFirst();
}

export interface OrderUpdate {
  status: OrderStatus;
  oid?: number | null;
  filled_size?: string | null;
  average_price?: string | null;
  error_code?: string | null;
  error_message?: string | null;
}

export function updateOrder(db: Kysely<Database>, x: SyncExecutor, cloid: string, update: OrderUpdate, now: number): void {
  x.run(db.updateTable("orders").set({ ...update, updated_at: now }).where("cloid", "=", cloid).compile());
}

/** Orders whose outcome the daemon does not know yet (crash or timeout mid-call). */
export async function inDoubt(db: Kysely<Database>, olderThan: number): Promise<OrderRow[]> {
  return db
    .selectFrom("orders")
    .selectAll()
    .where("status", "in", ["pending", "unknown"])
    .where("updated_at", "<=", olderThan)
    .orderBy("id")
    .limit(100)
    .execute();
}
