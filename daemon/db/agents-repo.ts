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

/** Per exchange account of an open vault: the vault, and its newest agent that was ever approved (valid_until set). */
export async function vaultAgents(db: Executor): Promise<Array<{ vault: string; investor: string; account: string; agent: string; valid_until: number }>> {
  const rows = await db.selectFrom("vaults as v")
    .innerJoin("agents as a", "a.account", "v.exchange_account")
    .select(["v.address as vault", "v.investor", "a.account", "a.address as agent", "a.valid_until", "a.created_at"])
    .where("v.closed", "=", 0).where("a.valid_until", "is not", null)
    .orderBy("a.created_at", "desc")
    .execute();
  const newest = new Map<string, (typeof rows)[number]>();
  for (const r of rows) if (!newest.has(r.account)) newest.set(r.account, r);
  return [...newest.values()].map((r) => ({ vault: r.vault, investor: r.investor, account: r.account, agent: r.agent, valid_until: r.valid_until! }));
}

/**
 * The exchange accounts the daemon trades for outside any vault: an approved agent key still valid,
 * and no open vault on the account. `approved_at`: when the daemon first had an approved key for it.
 */
export async function accountsOutsideVaults(db: Executor, nowMs: number): Promise<Array<{ account: string; approved_at: number }>> {
  const rows = await db.selectFrom("agents as a")
    .select((eb) => ["a.account", eb.fn.min<number>("a.approved_at").as("approved_at")])
    .where("a.approved_at", "is not", null)
    .where((eb) => eb.not(eb.exists(
      eb.selectFrom("vaults as v").select("v.address").whereRef("v.exchange_account", "=", "a.account").where("v.closed", "=", 0),
    )))
    .groupBy("a.account")
    .having((eb) => eb.fn.max("a.valid_until"), ">", nowMs)
    .execute();
  return rows.map((r) => ({ account: r.account, approved_at: Number(r.approved_at) }));
}
