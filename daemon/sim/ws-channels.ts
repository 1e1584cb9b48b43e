// What the sim streams over its WebSocket: the registry of subscription types and the publisher that
// pushes their data after the transaction that changed it committed, from two sources: a batch of
// mark moves (publishPrices, called by the sim after a tick or a setPrice) and the engine's events
// (sim-events.ts: fills, order updates, trades, book changes, user events).
import type { EngineCtx } from "./engine/context.js";
import { allMids } from "./info.js";
import { F } from "./num.js";
import type { SimEvent } from "./sim-events.js";
import { marketChannels, MarketState } from "./ws-market-channels.js";
import { subscriptionKey } from "./ws-protocol.js";
import { userChannels, userMessages } from "./ws-user-channels.js";
import type { Channel, SimWsServer, Subscription } from "./ws.js";
import type { SimLogger } from "./types.js";

function allMidsChannel(ctx: EngineCtx): Channel {
  return {
    // The sim has no builder-deployed dexes: only the first perp dex ("" or absent) exists.
    accepts: (sub: Subscription) => sub.dex === undefined || sub.dex === "",
    snapshot: () => ({ mids: allMids(ctx) }),
  };
}

export class SimStreams {
  readonly channels: ReadonlyMap<string, Channel>;
  private readonly market: MarketState;
  private ws: SimWsServer | undefined;
  private lastMids: Record<string, string>;

  constructor(private readonly ctx: EngineCtx, private readonly logger: SimLogger) {
    this.market = new MarketState(ctx);
    this.channels = new Map([["allMids", allMidsChannel(ctx)], ...marketChannels(this.market), ...userChannels(ctx)]);
    this.lastMids = allMids(ctx);
  }

  /** Starts publishing to `ws` (the server is built from `channels`, so it comes second). */
  attach(ws: SimWsServer): void {
    this.ws = ws;
    this.ctx.events.on((e) => {
      try {
        this.onEvent(e);
      } catch (err) {
        this.logger.error({ err, kind: e.kind }, "sim websocket publish failed");
      }
    });
  }

  /**
   * After a batch of mark moves (a tick, however many steps, or a setPrice): one allMids message, and
   * the book, bbo and candles of each coin whose mid moved; nothing when the batch moved nothing.
   */
  publishPrices(): void {
    const mids = allMids(this.ctx);
    const moved = Object.keys(mids).filter((coin) => mids[coin] !== this.lastMids[coin]);
    this.lastMids = mids;
    if (moved.length === 0 || !this.ws) return;
    this.ws.publish("allMids", () => ({ mids }));
    for (const coin of moved) {
      this.publishBook(coin);
      this.publishCandles(this.market.candles.onMark(coin, this.market.mark(coin), this.ctx.now()));
    }
  }

  private onEvent(e: SimEvent): void {
    const ws = this.ws!;
    if (e.kind === "book") return this.publishBook(e.coin);
    if (e.kind === "trades") {
      this.market.addTrades(e.coin, e.trades);
      ws.publish("trades", (sub) => (sub.coin === e.coin ? e.trades : undefined));
      const mark = this.market.mark(e.coin);
      for (const t of e.trades) this.publishCandles(this.market.candles.onTrade(e.coin, F.parse(t.sz), t.time, mark));
      return;
    }
    for (const m of userMessages(e)) {
      const user = m.user.toLowerCase();
      ws.publish(m.type, (sub) => ((sub.user as string).toLowerCase() === user ? m.data : undefined));
    }
  }

  /** l2Book (each subscription's own options) and bbo of `coin`, to subscriptions whose data changed. */
  private publishBook(coin: string): void {
    this.publishChanged("l2Book", coin, (sub) => this.market.book(sub), (b) => b.levels);
    this.publishChanged("bbo", coin, () => this.market.bbo(coin), (b) => b.bbo);
  }

  private publishChanged<T>(type: string, coin: string, dataFor: (sub: Subscription) => T, content: (d: T) => unknown): void {
    // One decision per distinct subscription, shared by every socket holding it.
    const decided = new Map<string, T | undefined>();
    this.ws!.publish(type, (sub) => {
      if (sub.coin !== coin) return undefined;
      const key = subscriptionKey(sub);
      if (!decided.has(key)) {
        const data = dataFor(sub);
        decided.set(key, this.market.isNews(sub, content(data)) ? data : undefined);
      }
      return decided.get(key);
    });
  }

  private publishCandles(candles: { s: string; i: string }[]): void {
    for (const c of candles) this.ws!.publish("candle", (sub) => (sub.coin === c.s && sub.interval === c.i ? c : undefined));
  }
}
