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

/** How many later seconds a reading may move to when its own is taken by another reading. */
const LATER_SECONDS = 5;

/** What putReadings did with each reading, by vault. */
export interface StoredReadings {
  /** Already stored for that second with the same account value and transfers: the same reading on-chain, someone else's to send. */
  same: Set<string>;
  /** Stored under a later second than asked (its own held another reading): send it under this one. */
  moved: Map<string, number>;
  /** Not stored: every second near it holds another reading. Not to be sent; the next cycle reads again. */
  dropped: Set<string>;
}

/**
 * Stores the records of readings about to be sent, one per vault and second, never replaced: a
 * record may describe a reading already mined (another daemon's, or this one's try whose answer
 * was lost), and the verifier checks every reading on-chain against its record. A reading whose
 * second holds the same figures is that reading; one whose second holds other figures (two daemons
 * reading one vault in one second as it moves, a retry after the account changed) takes the next
 * free second, as a reading that follows a mined one already does (the contract takes only newer
 * seconds, up to its clock-skew allowance ahead).
 */
export async function putReadings(db: Executor, records: readonly NewReadingRecord[]): Promise<StoredReadings> {
  const out: StoredReadings = { same: new Set(), moved: new Map(), dropped: new Set() };
  if (records.length === 0) return out;
  const nums = await db.selectFrom("vaults").select(["address", "num"]).where("address", "in", [...new Set(records.map((r) => r.vault))]).execute();
  const numOf = new Map(nums.map((n) => [n.address, n.num]));
  const known = records.filter((r) => numOf.has(r.vault));
  const rowOf = (r: NewReadingRecord, observedAt = r.observedAt): VaultReadingsTable => ({
    vault_num: numOf.get(r.vault)!, observed_at: observedAt, account_value: r.accountValue,
    external: r.external.toString(), state_time: r.stateTime, flat: r.flat ? 1 : 0,
  });
  for (const r of records.filter((x) => x.nettingFrom === x.stateTime)) {
    // Only a vault's first reading sets it: every later one nets from the same moment.
    await db.updateTable("vaults").set({ netting_from: r.nettingFrom }).where("address", "=", r.vault).where("netting_from", "is", null).execute();
  }
  // The insert decides, not a look before it: of two daemons writing one second at once, the second's
  // insert waits for the first's commit and then finds its row.
  const inserted = new Set<string>();
  for (const part of chunks(known.map((r) => rowOf(r)))) {
    const rows = await db.insertInto("vault_readings").values(part)
      .onConflict((oc) => oc.columns(["vault_num", "observed_at"]).doNothing())
      .returning(["vault_num", "observed_at"]).execute();
    for (const row of rows) inserted.add(`${row.vault_num}:${row.observed_at}`);
  }
  for (const r of known) {
    if (inserted.has(`${numOf.get(r.vault)}:${r.observedAt}`)) continue;
    for (let later = 0; ; later++) {
      const row = rowOf(r, r.observedAt + later);
      if (later > 0) {
        const put = await db.insertInto("vault_readings").values(row)
          .onConflict((oc) => oc.columns(["vault_num", "observed_at"]).doNothing()).returning("vault_num").executeTakeFirst();
        if (put) {
          out.moved.set(r.vault, row.observed_at);
          break;
        }
      }
      const held = await db.selectFrom("vault_readings").select(["account_value", "external"])
        .where("vault_num", "=", row.vault_num).where("observed_at", "=", row.observed_at).executeTakeFirst();
      // The reading on-chain is the account value net of the transfers: with both the same, it is the
      // same reading, whenever in that second each daemon read the account.
      if (held && held.account_value === row.account_value && held.external === row.external) {
        out.same.add(r.vault);
        break;
      }
      if (later >= LATER_SECONDS) {
        out.dropped.add(r.vault);
        break;
      }
    }
  }
  return out;
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
