// Token buckets in memory, one per key (client IP, or session). Enough for one daemon on one box.
import { AppError } from "../../errors.js";

export interface RateLimiter {
  /** Takes one token for `key` or throws RATE_LIMITED with the seconds until one is free. */
  take(key: string): void;
}

export function tokenBucket(opts: { capacity: number; perMs: number; clock: () => number }): RateLimiter {
  const { capacity, perMs, clock } = opts;
  const refillPerMs = capacity / perMs;
  const buckets = new Map<string, { tokens: number; at: number }>();
  return {
    take(key) {
      const now = clock();
      const b = buckets.get(key) ?? { tokens: capacity, at: now };
      b.tokens = Math.min(capacity, b.tokens + (now - b.at) * refillPerMs);
      b.at = now;
      if (b.tokens < 1) {
        buckets.set(key, b);
        const waitMs = (1 - b.tokens) / refillPerMs;
        throw new AppError("RATE_LIMITED", "too many requests; slow down", { retryAfter: waitMs / 1000 });
      }
      b.tokens -= 1;
      buckets.set(key, b);
      if (buckets.size > 10_000) prune(buckets, now, capacity, refillPerMs);
    },
  };
}

// Forget buckets that have refilled completely; they hold no information.
function prune(buckets: Map<string, { tokens: number; at: number }>, now: number, cap: number, rate: number) {
  for (const [key, b] of buckets) if (b.tokens + (now - b.at) * rate >= cap) buckets.delete(key);
}
