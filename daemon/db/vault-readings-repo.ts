// What each balance reading was computed from (db/schema-chain.ts VaultReadingsTable): written with
// the readings an update sends, read back by the vault's verification.
import type { VaultReadingsTable } from "./schema-chain.js";
import { chunks } from "./batches.js";
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
