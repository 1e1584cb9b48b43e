// Which store this test process runs on, and a fresh one of that kind per test. A file in a suite
// that scripts/run-tests.js also runs against PostgreSQL (TRADEVAULT_TEST_PG=1) runs twice: once on
// SQLite files, once on PostgreSQL databases (its result named "<file> [pg]").
import { join } from "node:path";
import type { RawBuilder } from "kysely";
import type { Callback } from "uvu";
import { openStore, type OpenedStore } from "../../daemon/db/database.js";
import type { Store, StoreKind } from "../../daemon/db/store.js";
import { freshDatabase } from "./postgres.js";
import { tempDir } from "./util.js";

export const storeKind: StoreKind = process.env.TRADEVAULT_TEST_PG === "1" || process.env.TRADEVAULT_TEST_PG_URL ? "postgres" : "sqlite";

/** Where a new store of this run's kind lives: a file in a new folder, or a new database. */
export async function freshTarget(): Promise<{ target: string; remove(): void }> {
  if (storeKind === "postgres") return { target: await freshDatabase(), remove: () => undefined };
  const dir = tempDir();
  return { target: join(dir.path, "t.db"), remove: dir.remove };
}

export interface TestStore {
  store: OpenedStore;
  /** The file or URL: open it again for a second connection (a second daemon, on PostgreSQL). */
  target: string;
  /** Closes the store and removes its folder. */
  close(): Promise<void>;
}

export async function openTestStore(): Promise<TestStore> {
  const { target, remove } = await freshTarget();
  const store = await openStore(target);
  return {
    store, target,
    close: async () => {
      await store.close();
      remove();
    },
  };
}

/** A test that means something on one kind of store only; on the other it is reported as skipped. */
export function only(kind: StoreKind, test: { (name: string, fn: Callback): void; skip(name?: string, fn?: Callback): void }) {
  return (name: string, fn: Callback): void => (kind === storeKind ? test(name, fn) : test.skip(`${name} (${kind} only${kind === "postgres" ? ": TRADEVAULT_TEST_PG=1 runs it" : ""})`, fn));
}

/** The rows of a raw query (tests that look at a table directly, on either store). */
export async function rows<T>(store: Store, query: RawBuilder<T>): Promise<T[]> {
  return (await query.execute(store.db)).rows;
}
