// Request weight as Hyperliquid weighs it against an IP's 1200 a minute (its "Rate limits" page),
// counted per user: the `user` an /info request asks about, the signer of an /exchange action. The
// sim refuses nothing for weight; the counts are there to be read, so a client's budget can be
// checked from outside it (GET /sim/weight).

/** Info types of weight 2; userRole weighs 60 and every other type 20. */
const LIGHT = new Set(["l2Book", "allMids", "clearinghouseState", "orderStatus", "spotClearinghouseState", "exchangeStatus"]);

/** Info types that cost 1 more per 20 items answered (the venue's list; its "nonUserFundingUpdates" read as the ledger). */
const PER_20_ITEMS = new Set([
  "recentTrades", "historicalOrders", "userFills", "userFillsByTime", "fundingHistory", "userFunding",
  "userNonFundingLedgerUpdates", "twapHistory", "userTwapSliceFills", "userTwapSliceFillsByTime",
  "delegatorHistory", "delegatorRewards", "validatorStats",
]);

export function infoWeight(type: string, answer: unknown): number {
  const base = LIGHT.has(type) ? 2 : type === "userRole" ? 60 : 20;
  const items = Array.isArray(answer) ? answer.length : 0;
  if (PER_20_ITEMS.has(type)) return base + Math.floor(items / 20);
  if (type === "candleSnapshot") return base + Math.floor(items / 60);
  return base;
}

/** `1 + floor(batch_length / 40)`, the batch being the action's list (orders, cancels, modifies). */
export function actionWeight(action: { type: string; orders?: unknown[]; cancels?: unknown[]; modifies?: unknown[] }): number {
  const batch = (action.orders ?? action.cancels ?? action.modifies ?? []).length;
  return 1 + Math.floor(batch / 40);
}

export interface UserWeight {
  /** Lower case, as the sim names accounts. */
  user: string;
  weight: number;
  requests: number;
  /** Weight by request type (`clearinghouseState`, `userFunding`, `order`, `cancel`, ...). */
  byType: Record<string, number>;
}

export interface WeightTotals {
  /** Every weighed request's, those of no user (meta, allMids, an unsigned action) included. */
  weight: number;
  requests: number;
}

/** Counts since the sim started (kept in memory: a restart starts from zero). */
export class WeightCounter {
  private readonly users = new Map<string, UserWeight>();
  private readonly totals: WeightTotals = { weight: 0, requests: 0 };

  count(user: string | undefined, type: string, weight: number): void {
    this.totals.weight += weight;
    this.totals.requests += 1;
    if (user === undefined) return;
    const key = user.toLowerCase();
    let u = this.users.get(key);
    if (!u) this.users.set(key, (u = { user: key, weight: 0, requests: 0, byType: {} }));
    u.weight += weight;
    u.requests += 1;
    u.byType[type] = (u.byType[type] ?? 0) + weight;
  }

  /** An /info request as answered: weighed by its type and, for lists, by what it returned. */
  countInfo(body: unknown, answer: unknown): void {
    const b = body as { type?: unknown; user?: unknown };
    const type = typeof b.type === "string" ? b.type : "unknown";
    this.count(typeof b.user === "string" ? b.user : undefined, type, infoWeight(type, answer));
  }

  of(user: string): UserWeight {
    const u = this.users.get(user.toLowerCase());
    return u ? { ...u, byType: { ...u.byType } } : { user: user.toLowerCase(), weight: 0, requests: 0, byType: {} };
  }

  all(): WeightTotals {
    return { ...this.totals };
  }
}
