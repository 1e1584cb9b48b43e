// The exchange's request budget as the metrics see it: a WeightLimiter that passes every call to the
// real one and counts the weight it granted, in total and over the last minute (Hyperliquid's own
// window), so a scrape can tell how close the daemon runs to 1200 a minute without a query language.
import type { WeightLimiter } from "../exchange/weight-limiter.js";

export interface MeteredLimiter extends WeightLimiter {
  /** Weight granted since start. */
  spentTotal(): number;
  /** Weight granted in the last 60 seconds. */
  spentLastMinute(): number;
}

const SLOTS = 60;

export function meteredLimiter(inner: WeightLimiter, clock: () => number = Date.now): MeteredLimiter {
  let total = 0;
  // One slot per second of the last minute; a slot is reused once its second has left the window.
  const weight = new Array<number>(SLOTS).fill(0);
  const second = new Array<number>(SLOTS).fill(-1);
  const record = (w: number) => {
    const s = Math.floor(clock() / 1000);
    const i = s % SLOTS;
    if (second[i] !== s) {
      second[i] = s;
      weight[i] = 0;
    }
    weight[i]! += w;
    total += w;
  };
  return {
    available: () => inner.available(),
    async acquire(w, opts) {
      await inner.acquire(w, opts);
      record(w);
    },
    spentTotal: () => total,
    spentLastMinute() {
      const now = Math.floor(clock() / 1000);
      let sum = 0;
      for (let i = 0; i < SLOTS; i++) if (now - second[i]! < SLOTS) sum += weight[i]!;
      return sum;
    },
  };
}
