// Which of an account's fills the venue forced on it, and what such a fill cost. The venue documents
// neither how a liquidation fill nor how an auto-deleveraging fill is marked; the rule below reads the
// SDK's fill schema (`liquidation?: {liquidatedUser?, markPx, method}`) and the `dir` values public
// records of the venue's fills show. docs/sim.md "Liquidations and auto-deleveraging" gives the rule
// with its uncertainty.
import { canonicalDecimal, subtractDecimal } from "../lib/decimal.js";
import type { FillState, ForcedFill } from "./types.js";

/** The `dir` of a fill that closed the account's position by auto-deleveraging. */
export const ADL_DIR = "Auto-Deleveraging";

/** The `dir` values of a liquidated account's own fill: "Liquidated Cross Long", "Liquidated Isolated Short"... */
const LIQUIDATED_DIR = /^Liquidated /;

/** What the rule reads of a venue fill (userFills, userFillsByTime, the WebSocket's userFills). */
export interface ForcedFillFields {
  dir: string;
  liquidation?: { liquidatedUser?: string; markPx: string; method: string };
}

/**
 * A fill of `account` is a liquidation when its `liquidation` names the account (or nobody), or its
 * `dir` says "Liquidated ..."; it is a deleveraging when its `dir` is "Auto-Deleveraging" and it does
 * not name the account as the one liquidated. A `liquidation` naming someone else on any other `dir`
 * is the account's own order meeting that liquidation on the book: an ordinary trade.
 */
export function forcedKind(fill: ForcedFillFields, account: string): ForcedFill | null {
  const liq = fill.liquidation;
  const markPrice = liq ? canonicalDecimal(liq.markPx) : null;
  const named = liq?.liquidatedUser?.toLowerCase();
  if (named !== undefined && named === account.toLowerCase()) return { kind: "liquidation", markPrice };
  if (fill.dir === ADL_DIR) return { kind: "deleveraging", markPrice };
  if (liq) return named === undefined ? { kind: "liquidation", markPrice } : null;
  return LIQUIDATED_DIR.test(fill.dir) ? { kind: "liquidation", markPrice: null } : null;
}

/** The figures a Liquidated or Deleveraged event or notice carries, `tradeId` naming the fill where it is recorded. */
export function forcedFillData(fill: FillState, tradeId: string) {
  return {
    tradeId, symbol: fill.symbol, side: fill.side, size: fill.size, price: fill.price,
    // What it cost the account: the realized loss plus the fee (negative for a gain).
    loss: subtractDecimal(fill.fee, fill.closedPnl),
    ...(fill.forced?.markPrice ? { markPrice: fill.forced.markPrice } : {}),
  };
}
