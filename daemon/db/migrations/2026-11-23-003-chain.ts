// Frozen in time: never import application code here, never edit after release; add a new file.
import type { Kysely } from "kysely";

export async function up(_db: Kysely<any>): Promise<void> {}

export async function down(_db: Kysely<any>): Promise<void> {}
