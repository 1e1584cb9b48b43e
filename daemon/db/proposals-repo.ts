// Funding proposals: terms, who signed, and the vault once it is deployed.
import type { Executor } from "./store.js";
import type { NewProposal, ProposalRow, ProposalStatus } from "./schema.js";

export async function insertProposal(db: Executor, row: NewProposal): Promise<ProposalRow> {
  return db.insertInto("proposals").values(row).returningAll().executeTakeFirstOrThrow();
}

export async function findProposal(db: Executor, id: number): Promise<ProposalRow | undefined> {
  return db.selectFrom("proposals").selectAll().where("id", "=", id).executeTakeFirst();
}

export async function proposalsOf(db: Executor, party: string, limit: number, offset: number) {
  const where = db.selectFrom("proposals").where((eb) => eb.or([eb("investor", "=", party), eb("trader", "=", party)]));
  const [rows, count] = await Promise.all([
    where.selectAll().orderBy("id", "desc").limit(limit).offset(offset).execute(),
    where.select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

export async function updateProposal(
  db: Executor,
  id: number,
  set: Partial<Pick<ProposalRow, "investor_signature" | "trader_signature" | "status" | "vault_address" | "create_tx" | "relay_error" | "rejected_by">>,
  now: number,
  onlyIfStatus?: ProposalStatus,
): Promise<boolean> {
  let q = db.updateTable("proposals").set({ ...set, updated_at: now }).where("id", "=", id);
  if (onlyIfStatus) q = q.where("status", "=", onlyIfStatus);
  const r = await q.executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** PENDING proposals past their validUntil become EXPIRED; returns how many. */
export async function expireProposals(db: Executor, nowSeconds: number, now: number): Promise<number> {
  const r = await db
    .updateTable("proposals")
    .set({ status: "EXPIRED", updated_at: now })
    .where("status", "=", "PENDING")
    .where("valid_until", "<", nowSeconds)
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}

/** Signed by both, not yet deployed: the relay is retried until it lands or the terms expire. */
export async function awaitingRelay(db: Executor): Promise<ProposalRow[]> {
  return db
    .selectFrom("proposals")
    .selectAll()
    .where("status", "=", "PENDING")
    .where("investor_signature", "is not", null)
    .where("trader_signature", "is not", null)
    .execute();
}
