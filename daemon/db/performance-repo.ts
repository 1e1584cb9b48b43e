// What a vault's performance figures are computed from, read in pages of the dense per-vault
// sequences (each page an index range), so a long-lived vault never sits in memory at once.
import { unpackEventData } from "./event-data.js";
import type { Executor } from "./store.js";

export interface StoredReading {
  seq: number;
  /** The reading's observedAt (Unix seconds); the event's block time for a reading without one. */
  at: number;
  /** Base units, decimal text. */
  balance: string;
}

/** The vault's BalanceUpdated readings with seq > afterSeq, oldest first, at most `limit` events scanned. */
export async function readingsPage(db: Executor, vault: string, afterSeq: number, limit: number): Promise<{ rows: StoredReading[]; lastSeq: number | null }> {
  const v = await db.selectFrom("vaults").select("num").where("address", "=", vault).executeTakeFirst();
  if (!v) return { rows: [], lastSeq: null };
  const events = await db.selectFrom("vault_events").select(["seq", "type", "time", "data"])
    .where("vault_num", "=", v.num).where("seq", ">", afterSeq).where("seq", "<=", afterSeq + limit)
    .orderBy("seq").execute();
  const rows = events.filter((e) => e.type === "BalanceUpdated").map((e) => {
    const data = unpackEventData(e.type, e.data);
    return { seq: e.seq, at: typeof data.observedAt === "number" ? data.observedAt : e.time, balance: String(data.balance) };
  });
  return { rows, lastSeq: events.at(-1)?.seq ?? null };
}

/** The fees of the vault's fills with seq > afterSeq, oldest first. */
export async function feesPage(db: Executor, vault: string, afterSeq: number, limit: number): Promise<Array<{ seq: number; fee: string }>> {
  return db.selectFrom("vault_trades").select(["seq", "fee"])
    .where("vault", "=", vault).where("seq", ">", afterSeq).where("seq", "<=", afterSeq + limit)
    .orderBy("seq").execute();
}
