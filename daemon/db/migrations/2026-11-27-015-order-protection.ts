// Frozen in time: never import application code here, never edit after release; add a new file.
// An entry's stop-loss and take-profit, sent with it as one normalTpsl action: what each child was
// answered (JSON: kind, trigger price, cloid, status, oid), so a retry with the entry's
// Idempotency-Key answers with them too. Null for an order without protection. Both stores.
import type { Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("orders").addColumn("protection", "text").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("orders").dropColumn("protection").execute();
}
