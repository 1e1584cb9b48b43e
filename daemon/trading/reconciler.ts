// Settles orders whose outcome the daemon does not know (a crash, a timeout or a 5xx after the send)
// by asking the exchange for the cloid: never by signing again. An order the exchange has not seen
// once its expiresAfter has passed can no longer land, so it is settled as never placed, and its
// Idempotency-Key is freed so that a retry places it anew.
import type { Logger } from "pino";
import type { Executor, UnitOfWork } from "../db/store.js";
import * as orders from "../db/orders-repo.js";
import type { OrderRow, OrderStatus } from "../db/schema.js";
import type { ExchangeAdapter, OrderLookup } from "../exchange/types.js";
import { withRetry } from "../lib/retry.js";

/** Clock skew allowance between us and the exchange when trusting expiresAfter. */
const EXPIRY_GRACE_MS = 5_000;

/**
 * Unix ms from which an order the exchange has not seen can be settled as never placed: its signed
 * expiresAfter, and the clock allowance, have passed. Before that a lookup that finds nothing proves
 * nothing, since the request may still be on its way.
 */
export const settledNoLaterThan = (row: Pick<OrderRow, "expires_at">): number => row.expires_at + EXPIRY_GRACE_MS;

export interface Reconciler {
  settle(cloid: string): Promise<OrderRow | undefined>;
  sweep(): Promise<number>;
  start(intervalMs: number): void;
  stop(): Promise<void>;
}

export interface ReconcilerDeps {
  db: Executor;
  work: UnitOfWork;
  exchange: ExchangeAdapter;
  clock: () => number;
  log: Logger;
  /** Tries per lookup when the exchange fails in a way worth retrying (default 3, 200 ms apart, doubling). */
  lookupAttempts?: number;
  lookupDelayMs?: number;
}

export function exchangeStatusToOrderStatus(status: string): OrderStatus {
  if (status === "open" || status === "triggered") return "resting";
  if (status === "filled") return "filled";
  if (/rejected$/i.test(status)) return "rejected";
  return "canceled"; // canceled, marginCanceled, reduceOnlyCanceled, scheduledCancel, ...
}

export function createReconciler(deps: ReconcilerDeps): Reconciler {
  const { db, work, exchange, clock, log } = deps;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<number> | undefined;

  async function settle(cloid: string): Promise<OrderRow | undefined> {
    const row = await orders.findByCloid(db, cloid);
    if (!row || (row.status !== "pending" && row.status !== "unknown")) return row;
    let lookup: OrderLookup;
    try {
      // A timeout or a 5xx is retried at once a few times; anything else waits for the next sweep.
      lookup = await withRetry(() => exchange.orderStatus(row.account, cloid as `0x${string}`), {
        attempts: deps.lookupAttempts ?? 3, baseDelayMs: deps.lookupDelayMs ?? 200,
        onRetry: (err, attempt) => log.debug({ cloid, attempt, err: (err as Error).message }, "order lookup failed; retrying"),
      });
    } catch (err) {
      log.warn({ cloid, err: (err as Error).message }, "cannot reconcile yet: exchange unavailable");
      return row;
    }
    if (lookup.found) {
      const status = exchangeStatusToOrderStatus(lookup.status);
      const filled = status === "filled" ? { filled_size: lookup.order.origSize } : {};
      await orders.updateOrder(db, cloid, {
        status, oid: lookup.order.oid, ...filled,
        ...(status === "rejected" ? { error_code: "ORDER_REJECTED", error_message: `the exchange rejected the order (${lookup.status})` } : {}),
      }, clock());
      log.info({ cloid, oid: lookup.order.oid, status }, "reconciled order");
    } else if (clock() > settledNoLaterThan(row)) {
      await work.write(async (trx) => {
        await orders.updateOrder(trx, cloid, {
          status: "rejected", error_code: "EXCHANGE_UNAVAILABLE",
          error_message: "the order never reached the exchange; nothing was placed",
        }, clock());
        await orders.releaseIdempotencyKey(trx, cloid, clock());
      });
      log.info({ cloid }, "reconciled order: never placed");
    }
    return orders.findByCloid(db, cloid);
  }

  async function sweep(): Promise<number> {
    const rows = await orders.inDoubt(db, clock() - 2_000);
    for (const row of rows) await settle(row.cloid);
    return rows.length;
  }

  return {
    settle,
    sweep,
    start(intervalMs) {
      const tick = () => {
        running ??= sweep()
          .catch((err) => (log.error({ err }, "reconciliation sweep failed"), 0))
          .finally(() => (running = undefined));
      };
      tick();
      timer = setInterval(tick, intervalMs);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      await running;
    },
  };
}
