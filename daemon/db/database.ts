// Opens the store a target names: a PostgreSQL URL (postgres:// or postgresql://) is a database
// shared with other daemons, anything else is the path of a SQLite file (or ":memory:").
import type { PostgresLimits } from "./postgres-pool.js";
import { openPostgresStore, type PostgresStore } from "./postgres-store.js";
import { openSqliteStore, type SqliteStore } from "./sqlite-store.js";

// daemon/chain may import only this file of db/'s store modules (docs/architecture.md): the port's
// types are re-exported here for it.
export type { Executor, Store, UnitOfWork } from "./store.js";

/** Either adapter; `kind` tells them apart where the file or the server matters (tests, backup). */
export type OpenedStore = SqliteStore | PostgresStore;

export const isPostgresUrl = (target: string): boolean => /^postgres(ql)?:\/\//i.test(target);

/** `limits` bound a PostgreSQL store's connections (postgres-pool.ts; its defaults when omitted). */
export function openStore(target: string, opts: { limits?: PostgresLimits } = {}): Promise<OpenedStore> {
  return isPostgresUrl(target) ? openPostgresStore(target, opts) : openSqliteStore(target);
}
