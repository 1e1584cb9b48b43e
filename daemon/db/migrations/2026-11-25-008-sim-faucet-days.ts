// Frozen in time: never import application code here, never edit after release; add a new file.
// What the daemon's sim faucet gave each account per UTC day, so its daily cap holds across restarts.
// Paper money only (the table lives in every network's file but only the embedded sim writes it).
import type { Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("sim_faucet_days")
    .addColumn("account", "text", (c) => c.notNull())
    .addColumn("day", "integer", (c) => c.notNull())
    // USDC base units as decimal text: summed as bigint, never as a float.
    .addColumn("granted", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("sim_faucet_days_pk", ["account", "day"])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("sim_faucet_days").execute();
}
