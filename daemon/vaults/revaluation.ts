// A vault's balance between two oracle polls, estimated from its last polled account state and the
// exchange's newer mid prices: each position's unrealized PnL moves with the mid, nothing else does.
// An estimate decides only whether to read the account fresh now; the fresh reading, written
// on-chain, is what the contract judges (DESIGN section 7: the poll stays the source of truth).
import type { AccountState } from "../exchange/types.js";
import { fixed } from "../lib/decimal.js";
import { USDC_DECIMALS } from "./units.js";

/** Enough decimals for any size x price product to round only below a USDC base unit. */
const wide = fixed(18);

/**
 * Account value at `mids`: the polled value, plus for each position size x (mid - mark at the poll),
 * where the mark at the poll is what its unrealized PnL implies (entry + uPnL / size). A position
 * whose coin has no newer mid keeps its polled value. USDC base units (truncated: an estimate).
 */
export function revalue(state: AccountState, mids: Record<string, string>): bigint {
  let value = wide.parse(state.accountValue, "floor");
  for (const p of state.positions) {
    const mid = mids[p.symbol];
    if (mid === undefined || p.size === "0") continue;
    const size = wide.parse(p.size);
    // size x mid - (size x entry + uPnL): the change of the position's value since the poll
    value += wide.mul(size, wide.parse(mid), "floor") - wide.mul(size, wide.parse(p.entryPrice), "floor") - wide.parse(p.unrealizedPnl, "floor");
  }
  return value / 10n ** BigInt(18 - USDC_DECIMALS);
}
