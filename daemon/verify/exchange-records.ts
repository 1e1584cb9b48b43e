// An exchange account's records from Hyperliquid's public info endpoint (or the sim's): fills, funding
// and the non-funding ledger from a time on, page by page, and the account's recent orders. Each call
// is weighed first by `spend`, so a daemon can keep these reads inside its request budget.
import { UnreadableError, type ExchangeRecords } from "./records.js";

/** The venue's page sizes: a full page means there may be more after its last record. */
const FILLS_PAGE = 2000;
const FUNDING_PAGE = 500;
const LEDGER_PAGE = 2000;
/** What each of these info types weighs per call at the venue, before its items. */
const BASE_WEIGHT = 20;
/** userFillsByTime serves only the 10,000 most recent fills of an account. */
const FILLS_KEPT = 10_000;

export interface ExchangeReadOptions {
  /**
   * Waits for `weight` of request budget (the daemon's limiter); none by default. Called before each
   * call with its base weight (20), and after a list with what its items added (1 per 20), as the
   * venue weighs them.
   */
  spend?: (weight: number) => Promise<void>;
  /** Also read the account's order history (for the order rows' check). */
  orders?: boolean;
}

type Timed = { time: number };

export function exchangeRecordsFrom(infoUrl: string, o: ExchangeReadOptions = {}) {
  async function info<T>(body: Record<string, unknown>): Promise<T> {
    await o.spend?.(BASE_WEIGHT);
    let res: Response;
    try {
      res = await fetch(infoUrl, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    } catch (err) {
      throw new UnreadableError(`cannot reach the exchange at ${infoUrl}: ${(err as Error).message}`);
    }
    if (!res.ok) throw new UnreadableError(`the exchange answered ${res.status} to ${String(body.type)}`);
    const answer = (await res.json()) as T;
    const items = Array.isArray(answer) ? answer.length : 0;
    if (items >= 20) await o.spend?.(Math.floor(items / 20));
    return answer;
  }

  /** Pages forward by time; a record at a page's last millisecond may repeat on the next page, so `key` dedupes. */
  async function paged<T extends Timed>(type: string, user: string, from: number, page: number, key: (r: T) => string): Promise<T[]> {
    const out = new Map<string, T>();
    for (let start = from; ;) {
      const rows = await info<T[]>({ type, user, startTime: start });
      for (const r of rows) out.set(key(r), r);
      if (rows.length < page) break;
      const last = Math.max(...rows.map((r) => r.time));
      if (last === start) break; // a whole page in one millisecond: nothing later to page to
      start = last;
    }
    return [...out.values()].sort((a, b) => a.time - b.time);
  }

  return async function read(account: string, sinceMs: number): Promise<ExchangeRecords> {
    type Fill = ExchangeRecords["fills"][number];
    const fills = await paged<Fill>("userFillsByTime", account, sinceMs, FILLS_PAGE, (f) => String(f.tid));
    if (fills.length >= FILLS_KEPT) throw new UnreadableError(`the exchange serves only the ${FILLS_KEPT} most recent fills of an account, and this one has at least that many since the vault started`);
    const funding = await paged<{ time: number; hash: string; delta: { usdc: string; coin: string } }>("userFunding", account, sinceMs, FUNDING_PAGE, (p) => `${p.time}:${p.hash}:${p.delta.coin}`);
    const ledger = await paged<ExchangeRecords["ledger"][number]>("userNonFundingLedgerUpdates", account, sinceMs, LEDGER_PAGE, (l) => `${l.time}:${l.hash}:${l.delta.type}`);
    const records: ExchangeRecords = {
      fills: fills.map((f) => ({ tid: f.tid, oid: f.oid, coin: f.coin, side: f.side, sz: f.sz, closedPnl: f.closedPnl, fee: f.fee, time: f.time })),
      funding: funding.map((p) => ({ time: p.time, usdc: p.delta.usdc })),
      ledger,
    };
    if (o.orders) {
      const history = await info<Array<{ order: { oid: number }; status: string; statusTimestamp: number }>>({ type: "historicalOrders", user: account });
      records.orders = history.map((h) => ({ oid: h.order.oid, status: h.status, statusTimestamp: h.statusTimestamp }));
    }
    return records;
  };
}
