// Whole-table reads the tests compare, built on the repositories' public functions (the daemon itself
// never reads a whole table, so the repositories carry no function for it).
import type { Executor } from "../../daemon/db/database.js";
import { journalFromNonce } from "../../daemon/db/chain-repo.js";
import { eventsAfter } from "../../daemon/db/vaults-repo.js";

/** Every stored vault event, by id. */
export async function allEvents(db: Executor) {
  const vaults = (await db.selectFrom("vaults").select("address").execute()).map((v) => v.address);
  return eventsAfter(db, vaults, 0, Number.MAX_SAFE_INTEGER);
}

/** Every journal row of `chain`, in the order they were written. */
export async function journalRows(db: Executor, chain: string) {
  return (await journalFromNonce(db, chain, 0)).sort((a, b) => a.id - b.id);
}
