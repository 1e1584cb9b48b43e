// Frozen in time: never import application code here, never edit after release; add a new file.
// The breach policy both parties sign (0 pause, 1 reduce-only, 2 flatten), and the exchange account's
// abstraction mode the oracle last saw under each vault. Rows from before read as "pause", the policy
// every vault had until then.
import type { Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("proposals").addColumn("breach_policy", "integer", (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable("vaults").addColumn("breach_policy", "integer", (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable("vaults").addColumn("account_mode", "text").execute();
  await db.schema.alterTable("vaults").addColumn("account_mode_checked_at", "integer").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("vaults").dropColumn("account_mode_checked_at").execute();
  await db.schema.alterTable("vaults").dropColumn("account_mode").execute();
  await db.schema.alterTable("vaults").dropColumn("breach_policy").execute();
  await db.schema.alterTable("proposals").dropColumn("breach_policy").execute();
}
