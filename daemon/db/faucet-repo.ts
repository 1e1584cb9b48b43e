// The sim faucet's daily tally per account (paper money). Amounts are USDC base units as bigint.
import type { Executor } from "./store.js";

export async function grantedOn(db: Executor, account: string, day: number): Promise<bigint> {
  const row = await db.selectFrom("sim_faucet_days").select("granted").where("account", "=", account).where("day", "=", day).executeTakeFirst();
  return row ? BigInt(row.granted) : 0n;
}

export async function setGranted(db: Executor, account: string, day: number, granted: bigint): Promise<void> {
  await db
    .insertInto("sim_faucet_days")
    .values({ account, day, granted: granted.toString() })
    .onConflict((oc) => oc.columns(["account", "day"]).doUpdateSet({ granted: granted.toString() }))
    .execute();
}
