// POST /sim/adl {user, symbol, size?}: auto-deleverages (part of) an account's position at the mark
// (engine/adl.ts), so a client can see how it tells a deleveraging from its own trades. The size is a
// JSON number or decimal text in the coin's lot; without it the whole position goes.
import { isValidSize, numberToDecimalString, toDecimalString } from "../lib/decimal.js";
import { ControlInputError } from "./controls.js";
import { autoDeleverage } from "./engine/adl.js";
import type { EngineCtx } from "./engine/context.js";
import { F } from "./num.js";
import { userAddress } from "./usdc-controls.js";

/** What the deleveraging did, as canonical decimal text. */
export interface AdlResult {
  user: string;
  symbol: string;
  /** The fill's side: "B" closed a short, "A" a long. */
  side: "B" | "A";
  size: string;
  price: string;
  closedPnl: string;
  tid: number;
  /** The account's signed position in the coin afterwards ("0" when it is gone). */
  position: string;
}

function sizeOf(size: string | number, szDecimals: number): bigint {
  let text: string;
  try {
    text = typeof size === "number" ? numberToDecimalString(size) : toDecimalString(size);
  } catch {
    text = "";
  }
  if (!isValidSize(text, szDecimals)) throw new ControlInputError(`bad size ${String(size)}: a positive size with at most ${szDecimals} decimals`);
  return F.parse(text);
}

export function deleverage(ctx: EngineCtx, user: string, symbol: string, size?: string | number): AdlResult {
  const address = userAddress(user);
  const market = ctx.markets.byCoin(symbol);
  if (!market) throw new ControlInputError(`unknown symbol ${symbol}`);
  const sz = size === undefined ? undefined : sizeOf(size, market.szDecimals);
  const r = ctx.tx(() => autoDeleverage(ctx, address, market, sz));
  if ("error" in r) throw new ControlInputError(r.error);
  const { fill } = r;
  return {
    user: address, symbol, side: fill.side, size: F.format(F.parse(fill.sz)), price: F.format(F.parse(fill.px)),
    closedPnl: F.format(F.parse(fill.closedPnl)), tid: fill.tid, position: F.format(r.position),
  };
}
