// Agent keys (sealed) per exchange account.
import type { Kysely } from "kysely";
import type { SyncExecutor } from "./database.js";
import type { AgentRow, Database } from "./schema.js";

export async function insertAgent(db: Kysely<Database>, row: AgentRow): Promise<void> {
  await db.insertInto("agents").values(row).execute();
}

/** Newest first. Synchronous: every order looks its agent up here. */
export function agentsFor(db: Kysely<Database>, x: SyncExecutor, account: string): AgentRow[] {
  return x.all(db.selectFrom("agents").selectAll().where("account", "=", account).orderBy("created_at", "desc").compile());
}

export async function markApproved(db: Kysely<Database>, address: string, approvedAt: number, validUntil: number | null) {
  await db.updateTable("agents").set({ approved_at: approvedAt, valid_until: validUntil }).where("address", "=", address).execute();
}

export async function markUnapproved(db: Kysely<Database>, address: string) {
  await db.updateTable("agents").set({ approved_at: null }).where("address", "=", address).execute();
}
