// Frozen in time: never import application code here, never edit after release; add a new file.
// Repairs the times written in the wrong unit before the vault projection took the clock in ms: the
// deliveries of contract events got created_at (and, until their first attempt, next_attempt_at) in
// Unix seconds, so the 30-day prune took them at once; a daemon event set a vault's updated_at in ms.
// A Unix time in ms is above 1e11 since 1973 and one in seconds below it until year 5138.
// Runs on SQLite and PostgreSQL alike.
import { sql, type Kysely } from "kysely";

const SPLIT = 100_000_000_000;

export async function up(db: Kysely<any>): Promise<void> {
  // Literal integers: a bound JS number is a REAL to SQLite, and its division would keep the fraction.
  await db.updateTable("webhook_deliveries").set({ created_at: sql`created_at * 1000` }).where("created_at", "<", SPLIT).execute();
  await db.updateTable("webhook_deliveries").set({ next_attempt_at: sql`next_attempt_at * 1000` }).where("next_attempt_at", "<", SPLIT).execute();
  await db.updateTable("vaults").set({ updated_at: sql`updated_at / 1000` }).where("updated_at", ">=", SPLIT).execute();
}

/** Nothing to undo: the old code wrote both units, and the repaired rows are right for it too. */
export async function down(): Promise<void> {}
