// Counts SQLite commits that wrote something, per database file, in this process: with WAL and
// synchronous=FULL each such commit is one fsync of the WAL (checkpoints add a few more), so this is
// what durability costs a request. Commits made with synchronous=NORMAL (the store's `relaxed`) are
// not synced and are counted apart, under "<file> (no fsync)". It wraps better-sqlite3's Statement methods
// and Database#exec (the store's units of work send BEGIN and COMMIT through exec); both are looked up
// at call time, so it may be installed and removed at any moment. Measurement only: keep it out of
// timed runs.
import BetterSqlite3 from "better-sqlite3";
import { basename } from "node:path";
import { installPgCommitCounter } from "./pg-commit-counter.js";

interface StatementLike {
  database: BetterSqlite3.Database;
  readonly: boolean;
  source: string;
}

export interface CommitCounter {
  /** Commits so far by database file name. */
  snapshot(): Record<string, number>;
  /** Puts better-sqlite3's own methods back. */
  uninstall(): void;
}

export function installCommitCounter(): CommitCounter {
  const probe = new BetterSqlite3(":memory:");
  const proto = Object.getPrototypeOf(probe.prepare("select 1")) as Record<string, (...a: unknown[]) => unknown>;
  const dbProto = Object.getPrototypeOf(probe) as Record<string, (...a: unknown[]) => unknown>;
  probe.close();
  const counts = new Map<string, number>();
  const dirty = new Set<BetterSqlite3.Database>();
  const bump = (db: BetterSqlite3.Database) => {
    const synced = (db.pragma("synchronous", { simple: true }) as number) >= 2;
    const name = basename(db.name) + (synced ? "" : " (no fsync)");
    counts.set(name, (counts.get(name) ?? 0) + 1);
  };
  const originals = { run: proto.run!, get: proto.get!, all: proto.all! };
  const wrap = (method: "run" | "get" | "all") => {
    const original = originals[method];
    proto[method] = function (this: StatementLike, ...args: unknown[]) {
      const db = this.database;
      const wasIn = db.inTransaction;
      const result = original.apply(this, args);
      const wrote = !this.readonly && (method === "run" ? (result as { changes: number }).changes > 0 : method === "get" ? result !== undefined : (result as unknown[]).length > 0);
      if (wasIn) {
        if (wrote) dirty.add(db);
        // This statement ended the transaction: a COMMIT (counted if it wrote) or a ROLLBACK.
        if (!db.inTransaction && dirty.delete(db) && !/^\s*rollback/i.test(this.source)) bump(db);
      } else if (wrote) {
        bump(db); // autocommit
      }
      return result;
    };
  };
  wrap("run");
  wrap("get");
  wrap("all");
  const exec = dbProto.exec!;
  dbProto.exec = function (this: BetterSqlite3.Database, text: unknown) {
    const wasIn = this.inTransaction;
    const result = exec.call(this, text);
    // A COMMIT of a transaction whose statements wrote (exec'd writes outside one are not the store's).
    if (wasIn && !this.inTransaction && dirty.delete(this) && !/^\s*rollback/i.test(String(text))) bump(this);
    return result;
  };
  return {
    snapshot: () => Object.fromEntries(counts),
    uninstall: () => {
      Object.assign(proto, originals);
      dbProto.exec = exec;
    },
  };
}

/** Per-file differences between two snapshots. */
export const commitsBetween = (before: Record<string, number>, after: Record<string, number>): Record<string, number> =>
  Object.fromEntries(Object.entries(after).map(([k, v]) => [k, v - (before[k] ?? 0)]).filter(([, v]) => (v as number) > 0));

/** The two worker methods a server module spreads into its API to offer commit counting (SQLite's and PostgreSQL's). */
export function commitProbe() {
  let counter: CommitCounter | undefined;
  return {
    countCommits(): void {
      counter ??= both(installCommitCounter(), installPgCommitCounter());
    },
    /** Stops counting; the commits since countCommits(), by database file name. */
    commits(): Record<string, number> {
      const counts = counter?.snapshot() ?? {};
      counter?.uninstall();
      counter = undefined;
      return counts;
    },
  };
}

function both(a: CommitCounter, b: CommitCounter): CommitCounter {
  return { snapshot: () => ({ ...a.snapshot(), ...b.snapshot() }), uninstall: () => (a.uninstall(), b.uninstall()) };
}
