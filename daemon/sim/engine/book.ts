// The synthetic order book: a ladder of bids and asks around the mark price with finite depth per
// level, so a large taker order walks the book and can fill only partly. The book is derived from the
// mark alone (stateless): liquidity taken by one order is back for the next one.
import { roundPrice } from "../../lib/decimal.js";
import { F, max } from "../num.js";
import type { Market } from "../types.js";

export interface BookConfig {
  /** Levels per side (Hyperliquid's l2Book shows at most 20). */
  levels: number;
  /** Distance of the best bid/ask from the mark, in basis points. */
  halfSpreadBps: number;
  /** Distance between consecutive levels, in basis points. */
  stepBps: number;
  /** Notional (USD, decimal text) resting at each level. */
  levelNotionalUsd: string;
}

export const DEFAULT_BOOK: BookConfig = { levels: 10, halfSpreadBps: 1, stepBps: 2, levelNotionalUsd: "50000" };

export interface BookLevel {
  px: bigint;
  sz: bigint;
}

export interface Book {
  bids: BookLevel[];
  asks: BookLevel[];
}

/** A valid price (Hyperliquid precision) at or beyond `raw` in the given direction. */
function validPx(raw: bigint, market: Market, direction: "floor" | "ceil"): bigint | undefined {
  if (raw <= 0n) return undefined;
  try {
    return F.parse(roundPrice(F.format(raw), market.szDecimals, direction));
  } catch {
    return undefined; // rounds to zero: no level there
  }
}

function side(mark: bigint, market: Market, cfg: BookConfig, dir: 1n | -1n): BookLevel[] {
  const levels: BookLevel[] = [];
  const notional = F.parse(cfg.levelNotionalUsd);
  const lot = F.one / 10n ** BigInt(market.szDecimals);
  const rounding = dir === 1n ? "ceil" : "floor";
  for (let i = 0; i < cfg.levels; i++) {
    const bps = BigInt(cfg.halfSpreadBps + i * cfg.stepBps);
    let p = validPx((mark * (10_000n + dir * bps)) / 10_000n, market, rounding);
    const prev = levels.at(-1)?.px;
    // Coarse ticks can round two levels onto one price: step to the next valid price instead.
    if (p !== undefined && prev !== undefined && (dir === 1n ? p <= prev : p >= prev)) {
      p = validPx(prev + dir, market, rounding);
    }
    if (p === undefined) break;
    const sz = max(lot, ((notional * F.one) / p / lot) * lot);
    levels.push({ px: p, sz });
  }
  return levels;
}

export function buildBook(mark: bigint, market: Market, cfg: BookConfig): Book {
  return { bids: side(mark, market, cfg, -1n), asks: side(mark, market, cfg, 1n) };
}

/** The levels a taker order at `limitPx` would consume, best first. */
export function crossingLevels(book: Book, isBuy: boolean, limitPx: bigint): BookLevel[] {
  return isBuy ? book.asks.filter((l) => l.px <= limitPx) : book.bids.filter((l) => l.px >= limitPx);
}
