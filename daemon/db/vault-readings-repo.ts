// What each balance reading was computed from (db/schema-chain.ts VaultReadingsTable): written with
// the readings an update sends, read back by the vault's verification with its order rows; and
// the last verification.
import type { VaultReadingsTable } from "./schema-chain.js";
import { chunks } from "./batches.js";
import { unpackEventData } from "./event-data.js";
import type { Executor } from "./store.js";

export interface ReadingRecord {
  vault: string;
  observedAt: number;
  accountValue: string;
  /** Base units, signed. */
  external: bigint;
  stateTime: number;
  flat: boolean;
}

/** A record as written: with where the vault's netting starts (kept on the vault by its first reading). */
export type NewReadingRecord = ReadingRecord & { nettingFrom: number };

/**
 * Stores the records of readings about to be sent. A reading sent again under the same observedAt (its
 * first transaction failed) replaces the record: the chain takes at most one reading per second.
 */
export async function putReadings(db: Executor, records: readonly NewReadingRecord[]): Promise<void> {
  if (records.length === 0) return;
  const nums = await db.selectFrom("vaults").select(["address", "num"]).where("address", "in", [...new Set(records.map((r) => r.vault))]).execute();
  const numOf = new Map(nums.map((n) => [n.address, n.num]));
  const rows: VaultReadingsTable[] = records.filter((r) => numOf.has(r.vault)).map((r) => ({
    vault_num: numOf.get(r.vault)!, observed_at: r.observedAt, account_value: r.accountValue,
    external: r.external.toString(), state_time: r.stateTime, flat: r.flat ? 1 : 0,
  }));
  for (const r of records.filter((x) => x.nettingFrom === x.stateTime)) {
    // Only a vault's first reading sets it: every later one nets from the same moment.
    await db.updateTable("vaults").set({ netting_from: r.nettingFrom }).where("address", "=", r.vault).where("netting_from", "is", null).execute();
  }
  for (const part of chunks(rows)) {
    await db.insertInto("vault_readings").values(part)
      .onConflict((oc) => oc.columns(["vault_num", "observed_at"]).doUpdateSet((eb) => ({
        account_value: eb.ref("excluded.account_value"), external: eb.ref("excluded.external"),
        state_time: eb.ref("excluded.state_time"), flat: eb.ref("excluded.flat"),
      })))
      .execute();
  }
}

/** Every reading record of the vault, oldest first. */
export async function readingsOf(db: Executor, vault: string): Promise<ReadingRecord[]> {
  const rows = await db.selectFrom("vault_readings")
    .innerJoin("vaults", "vaults.num", "vault_readings.vault_num")
    .select(["observed_at", "account_value", "external", "state_time", "flat"])
    .where("vaults.address", "=", vault)
    .orderBy("observed_at")
    .execute();
  return rows.map((r) => ({
    vault, observedAt: Number(r.observed_at), accountValue: r.account_value, external: BigInt(r.external),
    stateTime: Number(r.state_time), flat: r.flat === 1,
  }));
}

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
