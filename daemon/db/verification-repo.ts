// What a vault's verification reads of the daemon's own records besides its readings (the vault's
// order rows, the indexer's stored events) and where it keeps its last result.
import { unpackEventData } from "./event-data.js";
import type { Executor } from "./store.js";

/** The vault's order rows with an exchange order id, for the order rows' check. */
export async function vaultOrderRows(db: Executor, vault: string): Promise<Array<{ orderId: number; status: string; updatedAt: number }>> {
  const rows = await db.selectFrom("orders").select(["oid", "status", "updated_at"])
    .where("vault_address", "=", vault).where("oid", "is not", null).execute();
  return rows.map((r) => ({ orderId: Number(r.oid), status: r.status, updatedAt: Number(r.updated_at) }));
}

/** The vault's contract events as the indexer stored them (data unpacked), in chain order. */
export async function vaultChainEventRows(db: Executor, vault: string): Promise<Array<{ type: string; block: number; logIndex: number; time: number; data: Record<string, unknown> }>> {
  const rows = await db.selectFrom("vault_events").innerJoin("vaults", "vaults.num", "vault_events.vault_num")
    .select(["vault_events.type", "vault_events.block_number", "vault_events.log_index", "vault_events.time", "vault_events.data"])
    .where("vaults.address", "=", vault).where("vault_events.tx", "is not", null)
    .orderBy("vault_events.block_number").orderBy("vault_events.log_index").execute();
  return rows.map((r) => ({ type: r.type, block: Number(r.block_number), logIndex: Number(r.log_index), time: Number(r.time), data: unpackEventData(r.type, r.data) }));
}

/** Keeps the vault's last verification (JSON as rendered). */
export async function putVerification(db: Executor, vault: string, checkedAt: number, outcome: string, result: string): Promise<void> {
  const v = await db.selectFrom("vaults").select("num").where("address", "=", vault).executeTakeFirst();
  if (!v) return;
  await db.insertInto("vault_verifications").values({ vault_num: v.num, checked_at: checkedAt, outcome, result })
    .onConflict((oc) => oc.column("vault_num").doUpdateSet({ checked_at: checkedAt, outcome, result }))
    .execute();
}

export async function lastVerification(db: Executor, vault: string): Promise<string | undefined> {
  const row = await db.selectFrom("vault_verifications").innerJoin("vaults", "vaults.num", "vault_verifications.vault_num")
    .select("result").where("vaults.address", "=", vault).executeTakeFirst();
  return row?.result;
}
