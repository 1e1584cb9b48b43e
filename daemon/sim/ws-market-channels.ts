// The public market channels: l2Book and bbo (read through the /info l2Book handler, so the socket and
// POST /info never disagree), trades (forwarded from the engine's trade events) and candle (the open
// candle, ws-candles.ts). Each channel only answers what a subscriber gets; MarketFeeds decides when.
import { markOf, type EngineCtx } from "./engine/context.js";
import { handleInfo } from "./info.js";
import type { WireTrade } from "./sim-events.js";
import { CandleBook, isCandleInterval, type CandleInterval } from "./ws-candles.js";
import { subscriptionKey } from "./ws-protocol.js";
import type { Channel, Subscription } from "./ws.js";

type Level = { px: string; sz: string; n: number };
export interface WireBook {
  coin: string;
  time: number;
  levels: [Level[], Level[]];
}

// Trades a new `trades` subscriber gets first; the venue sends its recent trades the same way.
const RECENT_TRADES = 50;

const SIG_FIGS = [2, 3, 4, 5];
const MANTISSAS = [1, 2, 5];

function absent(v: unknown): boolean {
  return v === undefined || v === null;
}

export class MarketState {
  readonly candles = new CandleBook();
  private readonly recent = new Map<string, WireTrade[]>();
  /** Subscription key -> text of the book data last sent for it, so an unchanged book is not sent again. */
  private readonly lastSent = new Map<string, string>();

  constructor(private readonly ctx: EngineCtx) {}

  isCoin(coin: unknown): coin is string {
    return typeof coin === "string" && this.ctx.markets.byCoin(coin) !== undefined;
  }

  mark(coin: string): bigint {
    return markOf(this.ctx, this.ctx.markets.byCoin(coin)!);
  }

  /** The book as POST /info l2Book answers it for this subscription's options. */
  book(sub: Subscription): WireBook {
    const { coin, nSigFigs, mantissa } = sub;
    const req = { type: "l2Book", coin, ...(absent(nSigFigs) ? {} : { nSigFigs }), ...(absent(mantissa) ? {} : { mantissa }) };
    return handleInfo(this.ctx, req) as WireBook;
  }

  bbo(coin: string): { coin: string; time: number; bbo: [Level | null, Level | null] } {
    const book = this.book({ type: "l2Book", coin });
    return { coin, time: book.time, bbo: [book.levels[0][0] ?? null, book.levels[1][0] ?? null] };
  }

  /** Records `content` as sent for `sub`; false when it is what was sent last (nothing to send). */
  isNews(sub: Subscription, content: unknown): boolean {
    const key = subscriptionKey(sub);
    const text = JSON.stringify(content);
    if (this.lastSent.get(key) === text) return false;
    this.lastSent.set(key, text);
    return true;
  }

  addTrades(coin: string, trades: WireTrade[]): void {
    const kept = [...(this.recent.get(coin) ?? []), ...trades];
    this.recent.set(coin, kept.slice(-RECENT_TRADES));
  }

  recentTrades(coin: string): WireTrade[] {
    return this.recent.get(coin) ?? [];
  }

  candle(coin: string, interval: CandleInterval) {
    return this.candles.current(coin, interval, this.ctx.now(), this.mark(coin));
  }
}

/** A snapshot is always sent, and recorded so that the next change is compared with it. */
function remembered<T>(state: MarketState, sub: Subscription, data: T, content: (d: T) => unknown): T {
  state.isNews(sub, content(data));
  return data;
}

export function marketChannels(state: MarketState): [string, Channel][] {
  const coinOnly = (sub: Subscription) => state.isCoin(sub.coin);
  return [
    ["l2Book", {
      accepts: (sub) =>
        coinOnly(sub) &&
        (absent(sub.nSigFigs) || SIG_FIGS.includes(sub.nSigFigs as number)) &&
        // The venue takes a mantissa only with 5 significant figures.
        (absent(sub.mantissa) || (sub.nSigFigs === 5 && MANTISSAS.includes(sub.mantissa as number))),
      snapshot: (sub) => remembered(state, sub, state.book(sub), (b) => b.levels),
    }],
    ["bbo", { accepts: coinOnly, snapshot: (sub) => remembered(state, sub, state.bbo(sub.coin as string), (b) => b.bbo) }],
    ["trades", {
      accepts: coinOnly,
      // An empty list is not sent: clients read the coin from the first trade.
      snapshot: (sub) => {
        const trades = state.recentTrades(sub.coin as string);
        return trades.length > 0 ? trades : undefined;
      },
    }],
    ["candle", {
      accepts: (sub) => coinOnly(sub) && isCandleInterval(sub.interval),
      snapshot: (sub) => state.candle(sub.coin as string, sub.interval as CandleInterval),
    }],
  ];
}
