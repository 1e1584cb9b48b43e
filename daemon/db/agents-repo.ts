// Agent keys (sealed) per exchange account.
import type { Executor } from "./store.js";
import type { AgentRow } from "./schema.js";

export async function insertAgent(db: Executor, row: AgentRow): Promise<void> {
  await db.insertInto("agents").values(row).execute();
}

/** Newest first. */
export function agentsFor(db: Executor, account: string): Promise<AgentRow[]> {
  return db.selectFrom("agents").selectAll().where("account", "=", account).orderBy("created_at", "desc").execute();
}

export async function markApproved(db: Executor, address: string, approvedAt: number, validUntil: number | null) {
  await db.updateTable("agents").set({ approved_at: approvedAt, valid_until: validUntil }).where("address", "=", address).execute();
}

export async function markUnapproved(db: Executor, address: string) {
  await db.updateTable("agents").set({ approved_at: null }).where("address", "=", address).execute();
}

/** The agent key sealed last, of any account: a daemon's secret is checked against it at start. */
export function newestAgent(db: Executor): Promise<AgentRow | undefined> {
  return db.selectFrom("agents").selectAll().orderBy("created_at", "desc").limit(1).executeTakeFirst();
}
