// Units of work over any adapter's transactions: the outermost call opens a transaction, a call made
// inside it (found through AsyncLocalStorage, so callees need not pass the transaction along) joins it
// as a savepoint, and grouped calls made within a few milliseconds share one commit. The adapter
// says how a transaction is opened, committed and made durable; this module says how they nest.
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

interface Queued {
  fn: (trx: Executor) => Promise<unknown>;
  resolve(v: unknown): void;
  reject(e: unknown): void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/**
 * How long a group gathers after its first call. One turn of the event loop was too short once
 * sign-ins' signature checks moved to a thread: their logins come back one per turn, about 2 ms apart
 * under load, and each committed (and synced) alone (bench login: 0.87 commits per sign-in, against
 * 0.45 when the checks ran on the event loop). A sign-in can spare a few milliseconds.
 */
const GATHER_MS = 4;

export function unitOfWork(transaction: TransactionRunner): UnitOfWork & { flush(): Promise<void> } {
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

  function outermost<T>(synced: boolean, body: (t: OpenTransaction) => Promise<T>): Promise<T> {
    return transaction(synced, async (c) => {
      const t: OpenTransaction = { c, open: true, savepoints: 0 };
      try {
        return await current.run(t, () => body(t));
      } finally {
        t.open = false;
      }
    });
  }

  // The store outlives its transaction in work the transaction started (a timer, an unawaited
  // promise): such work finds it closed and opens a transaction of its own.
  const run = <T>(synced: boolean, fn: (trx: Executor) => Promise<T>): Promise<T> => {
    const outer = current.getStore();
    if (outer?.open) return inSavepoint(outer, fn);
    return outermost(synced, (t) => fn(t.c.trx));
  };

  let queue: Queued[] = [];
  let flushing: Promise<void> = Promise.resolve();
  const flush = (): Promise<void> => {
    const calls = queue;
    queue = [];
    if (calls.length === 0) return flushing;
    const outcomes: Outcome[] = [];
    flushing = outermost(true, async (t) => {
      for (const call of calls) {
        try {
          outcomes.push({ ok: true, value: await inSavepoint(t, call.fn) });
        } catch (error) {
          outcomes.push({ ok: false, error });
        }
      }
    }).then(
      () => calls.forEach((call, i) => {
        const o = outcomes[i]!;
        if (o.ok) call.resolve(o.value);
        else call.reject(o.error);
      }),
      (error) => calls.forEach((call) => call.reject(error)), // BEGIN or COMMIT failed: nothing was written
    );
    return flushing;
  };

  return {
    write: (fn) => run(true, fn),
    relaxed: (fn) => run(false, fn),
    grouped<T>(fn: (trx: Executor) => Promise<T>): Promise<T> {
      const outer = current.getStore();
      if (outer?.open) return inSavepoint(outer, fn);
      return new Promise<T>((resolve, reject) => {
        if (queue.length === 0) setTimeout(() => void flush(), GATHER_MS);
        queue.push({ fn, resolve: resolve as (v: unknown) => void, reject });
      });
    },
    flush,
  };
}
