// How far the daemon has read each outside-vault account's fills (notices/forced-fill-notices.ts).
import { sql } from "kysely";
import type { AccountFillCursorRow } from "./schema.js";
import type { Executor } from "./store.js";

export async function cursorsOf(db: Executor, accounts: string[]): Promise<Map<string, AccountFillCursorRow>> {
  if (accounts.length === 0) return new Map();
  const rows = await db.selectFrom("account_fill_cursors").selectAll().where("account", "in", accounts).execute();
  return new Map(rows.map((r) => [r.account, { ...r, through_ms: Number(r.through_ms), read_at: Number(r.read_at) }]));
}

/** Records a read; the cursor never moves back (two daemons reading one account may finish in either order). */
export async function saveCursor(db: Executor, account: string, throughMs: number, readAt: number): Promise<void> {
  await db.insertInto("account_fill_cursors").values({ account, through_ms: throughMs, read_at: readAt })
    .onConflict((oc) => oc.column("account").doUpdateSet({
      through_ms: sql`case when excluded.through_ms > account_fill_cursors.through_ms then excluded.through_ms else account_fill_cursors.through_ms end`,
      read_at: sql`excluded.read_at`,
    }))
    .execute();
}
