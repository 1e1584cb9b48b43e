// Hyperliquid limits each IP to 1200 request weight per minute (info 2 or 20, actions
// 1 + floor(batch/40)). This bucket makes callers wait for weight instead of earning 429s, and gives
// up (retryably) when the wait would be absurd. A share can be kept back for trading so the oracle
// never starves order placement.
import { AppError } from "../errors.js";

/** Hyperliquid's budget per IP, and the share background work (the oracle) leaves for trading. */
export const HYPERLIQUID_WEIGHT = { perMinute: 1_200, reservedForTrading: 200 } as const;

/**
 * What each of the adapter's reads weighs at Hyperliquid, per call. The lists (fills, funding, the
 * ledger) cost 1 more per 20 items answered (`listExtraWeight`), which is known only once answered.
 */
export const READ_WEIGHT = {
  accountState: 2, mids: 2, orderStatus: 2,
  markets: 20, openOrders: 20, approvedAgents: 20, accountMode: 20, fills: 20, ledgerUpdates: 20, fundingPayments: 20,
} as const;

/** The weight a list of `items` answered in one call adds to its call's. */
export const listExtraWeight = (items: number): number => Math.floor(items / 20);

/** What background work may spend per minute within HYPERLIQUID_WEIGHT. */
export const BACKGROUND_WEIGHT_PER_MINUTE = HYPERLIQUID_WEIGHT.perMinute - HYPERLIQUID_WEIGHT.reservedForTrading;

export interface WeightLimiter {
  acquire(weight: number, opts?: { priority?: "trading" | "background" }): Promise<void>;
  available(): number;
}

export function weightLimiter(opts: {
  perMinute: number;
  /** Weight that background work (the oracle) may not dip into. */
  reservedForTrading?: number;
  maxWaitMs?: number;
  clock?: () => number;
}): WeightLimiter {
  const clock = opts.clock ?? Date.now;
  const capacity = opts.perMinute;
  const perMs = capacity / 60_000;
  const reserve = opts.reservedForTrading ?? 0;
  const maxWaitMs = opts.maxWaitMs ?? 30_000;
  let tokens = capacity;
  let at = clock();
  const refill = () => {
    const now = clock();
    tokens = Math.min(capacity, tokens + (now - at) * perMs);
    at = now;
  };
  return {
    available: () => (refill(), tokens),
    async acquire(weight, o = {}) {
      const floor = o.priority === "background" ? reserve : 0;
      for (;;) {
        refill();
        if (tokens - weight >= floor) {
          tokens -= weight;
          return;
        }
        const waitMs = Math.ceil((weight + floor - tokens) / perMs);
        if (waitMs > maxWaitMs) {
          throw new AppError("EXCHANGE_UNAVAILABLE", "the exchange's request budget is spent; try again shortly", {
            retryable: true,
            retryAfter: waitMs / 1000,
          });
        }
        await new Promise((r) => setTimeout(r, Math.min(waitMs, 1000)));
      }
    },
  };
}
