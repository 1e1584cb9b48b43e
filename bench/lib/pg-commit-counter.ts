// The PostgreSQL side of commit-counter.ts: counts the commits this process's `pg` clients make, per
// database. The store (daemon/db/postgres-store.ts) opens a transaction only to write, so every
// transaction it begins is counted at its COMMIT: synced, or under `synchronous_commit = off`
// (counted apart, "(no fsync)": the commit does not wait for its WAL flush); a write statement sent
// outside a transaction is a commit of its own. It wraps pg's Client#query, looked up at call time;
// measurement only, like the SQLite counter.
import pg from "pg";
import type { CommitCounter } from "./commit-counter.js";

type Query = (this: pg.Client, config: unknown, ...rest: unknown[]) => unknown;

const textOf = (config: unknown): string =>
  typeof config === "string" ? config : typeof (config as { text?: unknown })?.text === "string" ? (config as { text: string }).text : "";

export function installPgCommitCounter(): CommitCounter {
  const proto = pg.Client.prototype as unknown as { query: Query };
  const original = proto.query;
  const counts = new Map<string, number>();
  /** Clients inside a transaction: whether it was begun with synchronous_commit off. */
  const open = new WeakMap<pg.Client, boolean>();
  const bump = (client: pg.Client, relaxed: boolean) => {
    const name = `${client.database ?? "postgres"} (PostgreSQL)${relaxed ? " (no fsync)" : ""}`;
    counts.set(name, (counts.get(name) ?? 0) + 1);
  };
  /** Bumps once `result` settles as a commit (COMMIT's answer is ROLLBACK when the transaction failed). */
  const onCommit = (client: pg.Client, result: unknown, relaxed: boolean, committed: (r: pg.QueryResult) => boolean) => {
    if (result && typeof (result as Promise<unknown>).then === "function") {
      (result as Promise<pg.QueryResult>).then((r) => committed(r) && bump(client, relaxed), () => undefined);
    }
  };
  proto.query = function (this: pg.Client, config: unknown, ...rest: unknown[]) {
    const text = textOf(config);
    const result = original.call(this, config, ...rest);
    if (/^\s*begin\b/i.test(text)) {
      open.set(this, /synchronous_commit\s*=\s*off/i.test(text));
    } else if (/^\s*commit\b/i.test(text)) {
      const relaxed = open.get(this);
      open.delete(this);
      if (relaxed !== undefined) onCommit(this, result, relaxed, (r) => r.command === "COMMIT");
    } else if (/^\s*rollback\b(?!\s+to\b)/i.test(text)) {
      open.delete(this);
    } else if (!open.has(this) && /^\s*(insert|update|delete)\b/i.test(text)) {
      onCommit(this, result, false, (r) => (r.rowCount ?? 0) > 0);
    }
    return result;
  };
  return {
    snapshot: () => Object.fromEntries(counts),
    uninstall: () => {
      proto.query = original;
    },
  };
}
