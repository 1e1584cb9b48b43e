// Frozen in time: never import application code here, never edit after release; add a new file.
// What each balance reading was computed from: the account value the exchange answered, the net
// external transfers subtracted, the exchange's time of that account state and whether the account
// held a position. One row per reading (the vault's number and its observedAt), so anyone checking a
// vault can redo every reading's netting from the exchange's own ledger. And each vault's last
// verification (verify/), shown on its page. And where each vault's netting starts: the exchange's
// time of the account state its first reading was taken from. Both stores.
import type { Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("vaults").addColumn("netting_from", "bigint").execute();
  await db.schema
    .createTable("vault_readings")
    .addColumn("vault_num", "integer", (c) => c.notNull().references("vaults.num"))
    .addColumn("observed_at", "bigint", (c) => c.notNull())
    .addColumn("account_value", "text", (c) => c.notNull())
    .addColumn("external", "text", (c) => c.notNull())
    .addColumn("state_time", "bigint", (c) => c.notNull())
    .addColumn("flat", "integer", (c) => c.notNull())
    .addPrimaryKeyConstraint("vault_readings_pk", ["vault_num", "observed_at"])
    .execute();
  await db.schema
    .createTable("vault_verifications")
    .addColumn("vault_num", "integer", (c) => c.primaryKey().references("vaults.num"))
    .addColumn("checked_at", "bigint", (c) => c.notNull())
    .addColumn("outcome", "text", (c) => c.notNull())
    // The whole answer, JSON, as GET /api/vaults/:address/verify rendered it.
    .addColumn("result", "text", (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("vault_verifications").execute();
  await db.schema.dropTable("vault_readings").execute();
  await db.schema.alterTable("vaults").dropColumn("netting_from").execute();
}
