// Opens the store a target names: the path of a SQLite file (or ":memory:").
import { openSqliteStore, type SqliteStore } from "./sqlite-store.js";

// daemon/chain may import only this file of db/'s store modules (docs/architecture.md): the port's
// types are re-exported here for it.
export type { Executor, Store, UnitOfWork } from "./store.js";

export type OpenedStore = SqliteStore;

export function openStore(target: string): Promise<OpenedStore> {
  return openSqliteStore(target);
}
