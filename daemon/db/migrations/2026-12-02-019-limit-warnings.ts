// Frozen in time: never import application code here, never edit after release; add a new file.
// Where each vault stands with its limit warnings (LimitNear): per drawdown limit, the highest level
// recorded (0 none, 80 or 90, percent of the limit) since the drawdown was last below 70% of it. Set
// in the transaction that stores the reading that crosses, with the event, so a restart or a second
// daemon neither repeats nor misses one. Runs on SQLite and PostgreSQL alike.
import type { Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("vaults").addColumn("max_limit_warned", "integer", (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable("vaults").addColumn("daily_limit_warned", "integer", (c) => c.notNull().defaultTo(0)).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("vaults").dropColumn("daily_limit_warned").execute();
  await db.schema.alterTable("vaults").dropColumn("max_limit_warned").execute();
}
