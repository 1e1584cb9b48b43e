// The exchange reads a signed-in user's request causes (the account summary, orders, positions, a
// vault's funding, the agent's approval, prices), kept per exchange account for a few seconds: a
// client polling them costs the venue one read per window, however fast it polls. What has to be
// read is weighed first against the caller's and all users' budgets (read-budget.ts); past them, an
// answer kept from the last minute is served as it is, and without one the request is refused
// (RATE_LIMITED). Reads that must be fresh (the order path's pre-trade read, enforcement, the oracle,
// a close) go to the adapter itself and never come here; an action on an account drops what is kept
// of it (`forget`), so the user's next read shows the order it placed.
import { FUNDING_PAGE } from "./hyperliquid-adapter.js";
import type { ReadBudget } from "./read-budget.js";
import type {
  AccountState, ApprovedAgent, Cloid, ExchangeAdapter, FillState, FundingPayment, OpenOrderState, OrderLookup, ReadOptions,
} from "./types.js";
import { listExtraWeight, READ_WEIGHT } from "./weight-limiter.js";

/** The reads as one user's request makes them: `account` is the exchange account read, the caller pays. */
export interface AccountReads {
  accountState(account: string): Promise<AccountState>;
  openOrders(account: string): Promise<OpenOrderState[]>;
  orderStatus(account: string, ref: number | Cloid): Promise<OrderLookup>;
  fills(account: string, startTime: number): Promise<FillState[]>;
  fundingPayments(account: string, startTime: number): Promise<FundingPayment[]>;
  approvedAgents(account: string): Promise<ApprovedAgent[]>;
  accountMode(account: string): Promise<string>;
  mids(): Promise<Record<string, string>>;
}

export interface UserReads {
  /** The reads of a request `caller` (a signed-in user's address) made. */
  as(caller: string): AccountReads;
  /** Drops what is kept of `account`: an action changed it. */
  forget(account: string): void;
  /** The budgets these reads are weighed against, for reads made elsewhere on a user's behalf (a verification's). */
  readonly budget: ReadBudget;
}

export interface UserReadsOptions {
  exchange: ExchangeAdapter;
  budget: ReadBudget;
  /** How long an answer stands for every later request (0: every request reads the exchange). */
  ttlMs: number;
  clock: () => number;
}

/** Past the budget, an answer this old is still served (the budgets' window: by then they have room). */
export const KEPT_MS = 60_000;
/** Answers kept at most, over all accounts; beyond it the expired go, then all. */
const MAX_KEPT = 20_000;
/** A user's reads never take the weight kept back for orders. */
const USER: ReadOptions = { priority: "background" };
/** Market data (prices) is no account's: kept under this key. */
const MARKET = "*";

interface Kept {
  at: number;
  value: unknown;
}

/** What is kept of one account; replaced by `forget`, so a read in flight across it stores nothing. */
interface AccountCache {
  kept: Map<string, Kept>;
  inFlight: Map<string, Promise<unknown>>;
}

/** What `items` funding payments cost beyond the first page's base weight, paged as the adapter pages them. */
function fundingExtra(items: number): number {
  const pages = Math.floor(items / FUNDING_PAGE) + 1;
  return (pages - 1) * (READ_WEIGHT.fundingPayments + listExtraWeight(FUNDING_PAGE)) + listExtraWeight(items % FUNDING_PAGE);
}

export function createUserReads(opts: UserReadsOptions): UserReads {
  const { exchange, budget, ttlMs, clock } = opts;
  const accounts = new Map<string, AccountCache>();
  let size = 0;

  const cacheOf = (account: string) => {
    let c = accounts.get(account);
    if (!c) accounts.set(account, (c = { kept: new Map(), inFlight: new Map() }));
    return c;
  };

  function keep(c: AccountCache, what: string, value: unknown): void {
    if (!c.kept.has(what)) size++;
    c.kept.set(what, { at: clock(), value });
    if (size <= MAX_KEPT) return;
    const now = clock();
    for (const [account, a] of accounts) {
      for (const [k, v] of a.kept) if (now - v.at >= KEPT_MS) (a.kept.delete(k), size--);
      if (a.kept.size === 0 && a.inFlight.size === 0) accounts.delete(account);
    }
    if (size > MAX_KEPT) (accounts.clear(), (size = 0));
  }

  function read<T>(caller: string, target: string, what: string, weight: number, fetch: () => Promise<T>, extra: (value: T) => number = () => 0): Promise<T> {
    const account = target.toLowerCase();
    const c = cacheOf(account);
    const now = clock();
    const hit = c.kept.get(what);
    if (hit && now - hit.at < ttlMs) return Promise.resolve(hit.value as T);
    // The same read already on its way answers this request too, at no cost to this caller.
    const pending = c.inFlight.get(what);
    if (pending) return pending as Promise<T>;
    try {
      budget.take(caller, weight);
    } catch (err) {
      if (hit && now - hit.at < KEPT_MS) return Promise.resolve(hit.value as T);
      return Promise.reject(err);
    }
    const p = fetch()
      .then((value) => {
        budget.charge(caller, extra(value));
        if (ttlMs > 0 && accounts.get(account) === c) keep(c, what, value);
        return value;
      })
      .finally(() => {
        c.inFlight.delete(what);
        if (c.kept.size === 0 && c.inFlight.size === 0 && accounts.get(account) === c) accounts.delete(account);
      });
    c.inFlight.set(what, p);
    return p;
  }

  return {
    budget,
    forget(account) {
      const c = accounts.get(account.toLowerCase());
      if (!c) return;
      size -= c.kept.size;
      accounts.delete(account.toLowerCase());
    },
    as: (caller) => ({
      accountState: (a) => read(caller, a, "accountState", READ_WEIGHT.accountState, () => exchange.accountState(a, USER)),
      openOrders: (a) => read(caller, a, "openOrders", READ_WEIGHT.openOrders, () => exchange.openOrders(a, USER)),
      orderStatus: (a, ref) => read(caller, a, `orderStatus:${ref}`, READ_WEIGHT.orderStatus, () => exchange.orderStatus(a, ref, USER)),
      fills: (a, from) => read(caller, a, `fills:${from}`, READ_WEIGHT.fills, () => exchange.fills(a, from, USER), (f) => listExtraWeight(f.length)),
      fundingPayments: (a, from) =>
        read(caller, a, `funding:${from}`, READ_WEIGHT.fundingPayments, () => exchange.fundingPayments(a, from, USER), (p) => fundingExtra(p.length)),
      approvedAgents: (a) => read(caller, a, "approvedAgents", READ_WEIGHT.approvedAgents, () => exchange.approvedAgents(a, USER)),
      accountMode: (a) => read(caller, a, "accountMode", READ_WEIGHT.accountMode, () => exchange.accountMode(a, USER)),
      mids: () => read(caller, MARKET, "mids", READ_WEIGHT.mids, () => exchange.mids(USER)),
    }),
  };
}
