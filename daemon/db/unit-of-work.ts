// Units of work over any adapter's transactions: the outermost call opens a transaction, and a call
// made inside it (found through AsyncLocalStorage, so callees need not pass the transaction along)
// joins it as a savepoint. The adapter says how a transaction is opened, committed and made durable;
// this module says how they nest.
import { AsyncLocalStorage } from "node:async_hooks";
import type { Executor, UnitOfWork } from "./store.js";

/** An open transaction as its adapter hands it over. */
export interface OpenConnection {
  trx: Executor;
  /** Runs a statement of the transaction's own (savepoint, release, rollback to) on its connection. */
  run(statement: string): void | Promise<void>;
}

/**
 * Opens a transaction (durable, or `synced: false` for a relaxed one), runs `body` in it, commits,
 * and rolls back when `body` throws. Only the adapter knows its connection and its durability knobs.
 */
export type TransactionRunner = <T>(synced: boolean, body: (c: OpenConnection) => Promise<T>) => Promise<T>;

interface OpenTransaction {
  c: OpenConnection;
  open: boolean;
  savepoints: number;
}

export function unitOfWork(transaction: TransactionRunner): UnitOfWork {
  const current = new AsyncLocalStorage<OpenTransaction>();

  async function inSavepoint<T>(t: OpenTransaction, fn: (trx: Executor) => Promise<T>): Promise<T> {
    const name = `sp${++t.savepoints}`;
    await t.c.run(`savepoint ${name}`);
    try {
      const value = await fn(t.c.trx);
      await t.c.run(`release ${name}`);
      return value;
    } catch (err) {
      await t.c.run(`rollback to ${name}`);
      await t.c.run(`release ${name}`);
      throw err;
    }
  }

  function outermost<T>(synced: boolean, fn: (trx: Executor) => Promise<T>): Promise<T> {
    return transaction(synced, async (c) => {
      const t: OpenTransaction = { c, open: true, savepoints: 0 };
      try {
        return await current.run(t, () => fn(c.trx));
      } finally {
        t.open = false;
      }
    });
  }

  // Work started inside a transaction (a timer, an unawaited promise) keeps its context after the
  // commit: it finds that transaction closed and opens one of its own.
  const run = <T>(synced: boolean, fn: (trx: Executor) => Promise<T>): Promise<T> => {
    const outer = current.getStore();
    if (outer?.open) return inSavepoint(outer, fn);
    return outermost(synced, fn);
  };

  return {
    write: (fn) => run(true, fn),
    relaxed: (fn) => run(false, fn),
  };
}
