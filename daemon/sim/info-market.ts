// Market-wide info answers: asset contexts, the order book (with nSigFigs aggregation), candles built
// from the sim's own mark history, funding history and the spot side (USDC only).
import { buildBook, type BookLevel } from "./engine/book.js";
import { markOf, type EngineCtx } from "./engine/context.js";
import { F, abs, exact } from "./num.js";
import type { Market } from "./types.js";

const DAY = 24 * 60 * 60 * 1000;

/** The synthetic ladder plus the users' resting orders at their prices (n counts the orders). */
function bookWithOrders(ctx: EngineCtx, market: Market) {
  const book = buildBook(markOf(ctx, market), market, ctx.cfg.book);
  const merge = (levels: BookLevel[], isBuy: boolean) => {
    const byPx = new Map<bigint, { px: bigint; sz: bigint; n: number }>();
    for (const l of levels) byPx.set(l.px, { px: l.px, sz: l.sz, n: 1 });
    for (const o of ctx.repo.openOrdersOn(market.name)) {
      if (o.isBuy !== isBuy) continue;
      const l = byPx.get(o.limitPx) ?? { px: o.limitPx, sz: 0n, n: 0 };
      byPx.set(o.limitPx, { px: l.px, sz: l.sz + o.sz, n: l.n + 1 });
    }
    return [...byPx.values()].sort((a, b) => (isBuy ? (b.px > a.px ? 1 : -1) : a.px > b.px ? 1 : -1));
  };
  return { bids: merge(book.bids, true), asks: merge(book.asks, false) };
}

/** Price bucket width for nSigFigs significant figures (and mantissa 2 or 5 at 5 figures). */
function bucket(px: bigint, nSigFigs: number, mantissa: number): bigint {
  const digits = px.toString().length; // px at the 18-decimal scale
  const exp = digits - nSigFigs;
  return exp <= 0 ? 1n : 10n ** BigInt(exp) * BigInt(mantissa);
}

function aggregate(levels: { px: bigint; sz: bigint; n: number }[], isBuy: boolean, nSigFigs: number, mantissa: number) {
  const out = new Map<bigint, { px: bigint; sz: bigint; n: number }>();
  for (const l of levels) {
    const step = bucket(l.px, nSigFigs, mantissa);
    const down = (l.px / step) * step;
    const px = isBuy || down === l.px ? down : down + step;
    const prev = out.get(px);
    out.set(px, { px, sz: (prev?.sz ?? 0n) + l.sz, n: (prev?.n ?? 0) + l.n });
  }
  return [...out.values()];
}

export function l2Book(ctx: EngineCtx, coin: string, nSigFigs?: number | null, mantissa?: number | null) {
  const market = ctx.markets.byCoin(coin);
  if (!market) return null;
  let { bids, asks } = bookWithOrders(ctx, market);
  if (nSigFigs) {
    bids = aggregate(bids, true, nSigFigs, mantissa ?? 1);
    asks = aggregate(asks, false, nSigFigs, mantissa ?? 1);
  }
  const level = (l: { px: bigint; sz: bigint; n: number }) => ({ px: exact(l.px), sz: exact(l.sz), n: l.n });
  return { coin, time: ctx.now(), levels: [bids.slice(0, 20).map(level), asks.slice(0, 20).map(level)] };
}

function dayVolume(ctx: EngineCtx, coin: string) {
  const fills = ctx.repo.allFillsBetween(ctx.now() - DAY, ctx.now()).filter((f) => f.coin === coin);
  const base = fills.reduce((acc, f) => acc + F.parse(f.sz), 0n);
  const ntl = fills.reduce((acc, f) => acc + F.mul(F.parse(f.sz), F.parse(f.px), "half-up"), 0n);
  return { base, ntl };
}

export function assetCtxs(ctx: EngineCtx) {
  const positions = ctx.repo.allPositions();
  return ctx.markets.all.map((m) => {
    const markPx = markOf(ctx, m);
    const mark = exact(markPx);
    const book = buildBook(markPx, m, ctx.cfg.book);
    // Open interest: every position is against the sim, so count the longs plus the shorts / 2.
    const oi = positions.filter((p) => p.coin === m.name).reduce((acc, p) => acc + abs(p.szi), 0n) / 2n;
    const vol = dayVolume(ctx, m.name);
    return {
      funding: exact(F.parse(ctx.cfg.fundingRate)), openInterest: exact(oi),
      prevDayPx: exact(ctx.repo.markBefore(m.name, ctx.now() - DAY) ?? markPx), dayNtlVlm: exact(vol.ntl),
      premium: "0.0", oraclePx: mark, markPx: mark, midPx: mark, dayBaseVlm: exact(vol.base),
      impactPxs: [exact(book.bids[0]?.px ?? 0n), exact(book.asks[0]?.px ?? 0n)],
    };
  });
}

/** Hyperliquid's candle intervals; months are calendar months (UTC). */
export const INTERVALS: Record<string, number> = {
  "1m": 60_000, "3m": 180_000, "5m": 300_000, "15m": 900_000, "30m": 1_800_000, "1h": 3_600_000,
  "2h": 7_200_000, "4h": 14_400_000, "8h": 28_800_000, "12h": 43_200_000, "1d": DAY, "3d": 3 * DAY,
  "1w": 7 * DAY, "1M": 0,
};
const MAX_CANDLES = 5000;

function bucketOf(time: number, interval: string): [start: number, end: number] {
  if (interval !== "1M") {
    const ms = INTERVALS[interval];
    const start = Math.floor(time / ms) * ms;
    return [start, start + ms];
  }
  const d = new Date(time);
  return [Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1), Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1)];
}

/** OHLC from the mark history, volume and trade count from the fills, one candle per bucket with data. */
export function candleSnapshot(ctx: EngineCtx, coin: string, interval: string, startTime: number, endTime?: number | null) {
  if (!ctx.markets.byCoin(coin)) return [];
  const end = endTime ?? ctx.now();
  type Candle = { t: number; T: number; s: string; i: string; o: bigint; c: bigint; h: bigint; l: bigint; v: bigint; n: number };
  const candles = new Map<number, Candle>();
  const touch = (time: number, px: bigint) => {
    const [t, next] = bucketOf(time, interval);
    const c = candles.get(t);
    if (!c) candles.set(t, { t, T: next - 1, s: coin, i: interval, o: px, c: px, h: px, l: px, v: 0n, n: 0 });
    else Object.assign(c, { c: px, h: px > c.h ? px : c.h, l: px < c.l ? px : c.l });
  };
  for (const m of ctx.repo.markHistory(coin, startTime, end)) touch(m.time, m.px);
  for (const f of ctx.repo.allFillsBetween(startTime, end)) {
    if (f.coin !== coin) continue;
    // Marks make the prices; a fill adds volume, and makes the prices only where no mark moved.
    if (!candles.has(bucketOf(f.time, interval)[0])) touch(f.time, F.parse(f.px));
    const c = candles.get(bucketOf(f.time, interval)[0])!;
    c.v += F.parse(f.sz);
    c.n += 1;
  }
  return [...candles.values()]
    .sort((a, b) => a.t - b.t)
    .slice(-MAX_CANDLES)
    .map((c) => ({ ...c, o: exact(c.o), c: exact(c.c), h: exact(c.h), l: exact(c.l), v: exact(c.v) }));
}

export function fundingHistory(ctx: EngineCtx, coin: string, startTime: number, endTime?: number | null) {
  return ctx.repo.fundingRates(coin, startTime, endTime ?? ctx.now()).map((r) => ({
    coin, fundingRate: exact(r.rate), premium: "0.0", time: r.time,
  }));
}

/** USDC is the sim's only spot token, and there are no spot pairs. */
const USDC_TOKEN = {
  name: "USDC", szDecimals: 8, weiDecimals: 8, index: 0, tokenId: "0x6d1e7cde53ba9467b783cb7c530ce054",
  isCanonical: true, evmContract: null, fullName: null, deployerTradingFeeShare: "0.0",
};

export const spotMeta = () => ({ universe: [], tokens: [USDC_TOKEN] });

export function spotClearinghouseState(ctx: EngineCtx, user: string) {
  const total = ctx.repo.spotUsdc(user);
  return { balances: [{ coin: "USDC", token: 0, total: exact(total), hold: "0.0", entryNtl: "0.0" }] };
}
