// Runs an adapter's migrations at open. Each adapter has its own list (migrations/index.ts): SQLite
// keeps its history, PostgreSQL starts from a baseline of the same schema; later ones run on both.
import { Migrator, type Kysely, type Migration } from "kysely";
import type { Database } from "./schema.js";

export async function migrateToLatest(db: Kysely<Database>, migrations: Record<string, Migration>): Promise<void> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === "Error");
  if (error || failed) {
    await db.destroy();
    throw new Error(`database migration failed${failed ? ` at ${failed.migrationName}` : ""}: ${String(error)}`, {
      cause: error,
    });
  }
}
