// Keeps the rows of orders the daemon last saw open (resting) in step with the exchange, whoever
// closed the order there: a fill at a price move, a trigger that fired, a cancel by the venue, by
// enforcement, by a vault's close or by another client. Only a final status the exchange stated is
// stored, so an exchange that fails or does not know the order delays the row, never marks it
// wrongly; a row changes only while it is resting, so passes on daemons sharing a store may overlap.
import type { Logger } from "pino";
import type { Executor } from "../db/store.js";
import * as orders from "../db/orders-repo.js";
import type { ExchangeAdapter, OrderLookup, ReadOptions } from "../exchange/types.js";
import { compareDecimal, subtractDecimal } from "../lib/decimal.js";
import { exchangeStatusToOrderStatus } from "./reconciler.js";

const BACKGROUND: ReadOptions = { priority: "background" };
/** One order's status costs 2 of request weight, the account's open orders 20: the list pays from 11 orders on. */
const LOOKUPS_BEFORE_LIST = 10;
/** Rows compared in one pass at most, oldest first; the rest wait for the next pass. */
const ROWS_PER_PASS = 2_000;

export interface OrderSyncDeps {
  db: Executor;
  exchange: ExchangeAdapter;
  clock: () => number;
  log: Logger;
}

/** What the row should say of an order the exchange has closed; undefined while it is open or unknown there. */
export function finalUpdate(lookup: OrderLookup): orders.OrderUpdate | undefined {
  if (!lookup.found) return undefined;
  const status = exchangeStatusToOrderStatus(lookup.status);
  if (status === "resting") return undefined;
  const { origSize, size } = lookup.order;
  if (status === "filled") return { status, filled_size: origSize };
  if (status === "rejected") return { status, error_code: "ORDER_REJECTED", error_message: `the exchange rejected the order (${lookup.status})` };
  // A canceled order's remaining size is what was canceled; the rest had filled.
  const filled = subtractDecimal(origSize, size);
  return compareDecimal(filled, "0") > 0 ? { status, filled_size: filled } : { status };
}

export function createOrderSync(deps: OrderSyncDeps) {
  const { db, exchange, clock, log } = deps;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<number> | undefined;

  /** Stores what a lookup of one of the account's orders said, when it says the order is closed. */
  async function record(account: string, lookup: OrderLookup): Promise<boolean> {
    const update = finalUpdate(lookup);
    if (!update || !lookup.found) return false;
    const changed = await orders.settleResting(db, account, lookup.order.oid, update, clock());
    if (changed) log.info({ account, oid: lookup.order.oid, status: update.status }, "order closed at the exchange; row settled");
    return changed;
  }

  /** The account's resting rows against the exchange, by whichever read costs less: how many it settled. */
  async function syncAccount(account: string, oids: number[]): Promise<number> {
    const listed = oids.length > LOOKUPS_BEFORE_LIST ? await exchange.openOrders(account, BACKGROUND) : undefined;
    const open = new Set(listed?.map((o) => o.oid));
    let settled = 0;
    for (const oid of oids) {
      if (open.has(oid)) continue;
      if (await record(account, await exchange.orderStatus(account, oid, BACKGROUND))) settled += 1;
    }
    return settled;
  }

  /** Every account with resting rows, one after another; one the exchange fails for waits for the next pass. */
  async function pass(): Promise<number> {
    const byAccount = new Map<string, number[]>();
    for (const { account, oid } of await orders.restingOrders(db, ROWS_PER_PASS)) {
      const oids = byAccount.get(account);
      if (oids) oids.push(oid);
      else byAccount.set(account, [oid]);
    }
    let settled = 0;
    for (const [account, oids] of byAccount) {
      try {
        settled += await syncAccount(account, oids);
      } catch (err) {
        log.warn({ account, err: (err as Error).message }, "cannot compare the account's orders with the exchange yet; the next pass tries again");
      }
    }
    return settled;
  }

  return {
    record,
    pass,
    /** A pass now (a restart settles what changed while the daemon was down), then one every `everyMs`. */
    start(everyMs: number) {
      const tick = () => {
        running ??= pass()
          .catch((err) => (log.error({ err }, "order sync pass failed"), 0))
          .finally(() => (running = undefined));
      };
      tick();
      timer = setInterval(tick, everyMs);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      await running;
    },
  };
}

export type OrderSync = ReturnType<typeof createOrderSync>;
