// What the repositories that write many rows at once share: lists cut to a size far under either
// store's limit on bound parameters (SQLite 32,766; PostgreSQL 65,535), and which dialect a handle
// speaks, for the statements only one of them has (FOR UPDATE, NOTIFY).
import { PostgresAdapter } from "kysely";
import type { Executor } from "./store.js";

/** Rows per statement. */
const CHUNK = 1_000;

/** `list` in slices of at most CHUNK, in order. */
export const chunks = <T>(list: readonly T[]): T[][] =>
  Array.from({ length: Math.ceil(list.length / CHUNK) }, (_, i) => list.slice(i * CHUNK, (i + 1) * CHUNK));

export const onPostgres = (db: Executor): boolean => db.getExecutor().adapter instanceof PostgresAdapter;
