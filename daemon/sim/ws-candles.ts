// The open candle of every coin and interval, kept in memory for the WebSocket's `candle` channel:
// open/high/low/close from the marks the sim observed, volume and count from its trades. A candle
// opens at the first mark seen in its bucket (after a restart, at the mark then), so highs and lows
// between two observations are not seen.
import { exact } from "./num.js";

export const CANDLE_INTERVALS = ["1m", "3m", "5m", "15m", "30m", "1h", "2h", "4h", "8h", "12h", "1d", "3d", "1w", "1M"] as const;
export type CandleInterval = (typeof CANDLE_INTERVALS)[number];

const MINUTE = 60_000;
const FIXED_MS: Record<Exclude<CandleInterval, "1M">, number> = {
  "1m": MINUTE, "3m": 3 * MINUTE, "5m": 5 * MINUTE, "15m": 15 * MINUTE, "30m": 30 * MINUTE,
  "1h": 60 * MINUTE, "2h": 120 * MINUTE, "4h": 240 * MINUTE, "8h": 480 * MINUTE, "12h": 720 * MINUTE,
  "1d": 1440 * MINUTE, "3d": 3 * 1440 * MINUTE, "1w": 7 * 1440 * MINUTE,
};

/** One candle as the venue's `candle` channel sends it. */
export interface WireCandle {
  t: number;
  T: number;
  s: string;
  i: CandleInterval;
  o: string;
  c: string;
  h: string;
  l: string;
  v: string;
  n: number;
}

interface OpenCandle {
  t: number;
  T: number;
  o: bigint;
  h: bigint;
  l: bigint;
  c: bigint;
  v: bigint;
  n: number;
}

export function isCandleInterval(v: unknown): v is CandleInterval {
  return typeof v === "string" && (CANDLE_INTERVALS as readonly string[]).includes(v);
}

/** [open, close] of the bucket holding `time`: UTC months for 1M, multiples of the length since the epoch otherwise. */
export function bucketOf(interval: CandleInterval, time: number): [number, number] {
  if (interval === "1M") {
    const d = new Date(time);
    const open = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
    return [open, Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) - 1];
  }
  const ms = FIXED_MS[interval];
  const open = Math.floor(time / ms) * ms;
  return [open, open + ms - 1];
}

export class CandleBook {
  private readonly open = new Map<string, OpenCandle>();

  /** The candle of `coin` for `interval` at `time`; opened at `mark` when none is open yet. */
  current(coin: string, interval: CandleInterval, time: number, mark: bigint): WireCandle {
    return this.render(coin, interval, this.candleAt(coin, interval, time, mark));
  }

  /** Records a mark: every interval's candle of `coin` moves; returns the candles whose close changed or that opened. */
  onMark(coin: string, mark: bigint, time: number): WireCandle[] {
    const changed: WireCandle[] = [];
    for (const interval of CANDLE_INTERVALS) {
      const key = `${coin}:${interval}`;
      const before = this.open.get(key);
      const c = this.candleAt(coin, interval, time, mark);
      if (c === before && c.c === mark) continue;
      c.c = mark;
      if (mark > c.h) c.h = mark;
      if (mark < c.l) c.l = mark;
      changed.push(this.render(coin, interval, c));
    }
    return changed;
  }

  /** Records a trade's size in every interval's candle of `coin`; returns them. */
  onTrade(coin: string, sz: bigint, time: number, mark: bigint): WireCandle[] {
    return CANDLE_INTERVALS.map((interval) => {
      const c = this.candleAt(coin, interval, time, mark);
      c.v += sz;
      c.n += 1;
      return this.render(coin, interval, c);
    });
  }

  private candleAt(coin: string, interval: CandleInterval, time: number, mark: bigint): OpenCandle {
    const key = `${coin}:${interval}`;
    const c = this.open.get(key);
    if (c && time >= c.t && time <= c.T) return c;
    // A new bucket opens at the previous close when there was one: candles join without gaps.
    const openPx = c && time > c.T ? c.c : mark;
    const [t, T] = bucketOf(interval, time);
    const fresh: OpenCandle = { t, T, o: openPx, h: openPx, l: openPx, c: openPx, v: 0n, n: 0 };
    this.open.set(key, fresh);
    return fresh;
  }

  private render(coin: string, interval: CandleInterval, c: OpenCandle): WireCandle {
    return {
      t: c.t, T: c.T, s: coin, i: interval, o: exact(c.o), c: exact(c.c), h: exact(c.h), l: exact(c.l),
      v: exact(c.v), n: c.n,
    };
  }
}
