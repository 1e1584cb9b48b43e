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
 * Stores the records of readings about to be sent; answers the vaults whose record for that second
 * was already stored with the same account value and transfers (another daemon's, or this one's
 * earlier try), the same reading on-chain: someone
 * is sending that very reading, and a second send is a transaction the contract discards. A record
 * under the same observedAt with other figures (a try whose transaction failed, read again) is
 * replaced: the chain takes at most one reading per second.
 */
export async function putReadings(db: Executor, records: readonly NewReadingRecord[]): Promise<Set<string>> {
  const stored = new Set<string>();
  if (records.length === 0) return stored;
  const nums = await db.selectFrom("vaults").select(["address", "num"]).where("address", "in", [...new Set(records.map((r) => r.vault))]).execute();
  const numOf = new Map(nums.map((n) => [n.address, n.num]));
  const known = records.filter((r) => numOf.has(r.vault));
  const rowOf = (r: NewReadingRecord): VaultReadingsTable => ({
    vault_num: numOf.get(r.vault)!, observed_at: r.observedAt, account_value: r.accountValue,
    external: r.external.toString(), state_time: r.stateTime, flat: r.flat ? 1 : 0,
  });
  for (const r of records.filter((x) => x.nettingFrom === x.stateTime)) {
    // Only a vault's first reading sets it: every later one nets from the same moment.
    await db.updateTable("vaults").set({ netting_from: r.nettingFrom }).where("address", "=", r.vault).where("netting_from", "is", null).execute();
  }
  // The insert decides, not a look before it: of two daemons writing one second at once, the second's
  // insert waits for the first's commit and then finds its row.
  const inserted = new Set<string>();
  for (const part of chunks(known.map(rowOf))) {
    const rows = await db.insertInto("vault_readings").values(part)
      .onConflict((oc) => oc.columns(["vault_num", "observed_at"]).doNothing())
      .returning(["vault_num", "observed_at"]).execute();
    for (const row of rows) inserted.add(`${row.vault_num}:${row.observed_at}`);
  }
  for (const r of known) {
    const row = rowOf(r);
    if (inserted.has(`${row.vault_num}:${row.observed_at}`)) continue;
    const replaced = await db.updateTable("vault_readings")
      .set({ account_value: row.account_value, external: row.external, state_time: row.state_time, flat: row.flat })
      .where("vault_num", "=", row.vault_num).where("observed_at", "=", row.observed_at)
      // The reading on-chain is the account value net of the transfers: with both the same, it is
      // the same reading, whenever in that second each daemon read the account.
      .where((eb) => eb.or([eb("account_value", "!=", row.account_value), eb("external", "!=", row.external)]))
      .executeTakeFirst();
    if (Number(replaced.numUpdatedRows) === 0) stored.add(r.vault);
  }
  return stored;
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
