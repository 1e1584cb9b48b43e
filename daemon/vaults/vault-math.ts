// The vault rules the daemon must agree with the contract on, over integers (USDC base units, basis
// points): the vault's balance net of external transfers, and the two drawdowns. A breach is reached
// AT the limit: (reference - current) * 10000 >= limitBps * reference.
import { fixed } from "../lib/decimal.js";
import { USDC_DECIMALS } from "./units.js";

const usd = fixed(USDC_DECIMALS);

/** Net USDC moved into the account by others (negative: out), in base units, rounded against the vault. */
export function externalTotal(deltas: string[]): bigint {
  let total = 0n;
  for (const d of deltas) total += usd.parse(d, "ceil");
  return total;
}

/** Account value minus external transfers, in base units, floored at 0 (the contract holds no debt). */
export function netBalance(accountValue: string, external: bigint): bigint {
  const value = usd.parse(accountValue, "floor") - external;
  return value > 0n ? value : 0n;
}

/** Drawdown from `reference` to `current` in basis points, rounded down; 0 when not below. */
export function drawdownBps(reference: bigint, current: bigint): number {
  if (reference <= 0n || current >= reference) return 0;
  return Number(((reference - current) * 10_000n) / reference);
}

/**
 * A vault's two drawdowns at `current`, as its terms measure them: the maximum trailing from the peak,
 * the daily from the day's first balance. Every figure and rule that compares a drawdown with its
 * limit (the views, the warnings, the pre-trade check) takes it from here.
 */
export function limitDrawdowns(state: { peak: bigint; dayStart: bigint }, current: bigint): { maxBps: number; dailyBps: number } {
  return { maxBps: drawdownBps(state.peak, current), dailyBps: drawdownBps(state.dayStart, current) };
}

export function breached(reference: bigint, current: bigint, limitBps: number): boolean {
  return reference > 0n && current < reference && (reference - current) * 10_000n >= BigInt(limitBps) * reference;
}

export interface RiskState {
  /** Starts at initialBalance; only readings above it raise it. */
  peak: bigint;
  dayStart: bigint;
  /**
   * UTC day number (seconds / 86400) of the stored day start, or null while the vault has no reading
   * yet (last_observed_at is null): the next reading is then the day's reference whatever the day.
   */
  day: number | null;
}

/** What a reading at `nowSeconds` would do to the state, as the contract would compute it. */
export function assess(state: RiskState, current: bigint, nowSeconds: number, limits: { maxBps: number; dailyBps: number }) {
  const today = Math.floor(nowSeconds / 86_400);
  // `>` rather than the contract's `!=`: block days never go back, but a skewed clock here could, and
  // a reset on a backward step would hide today's loss.
  const dayStart = state.day === null || today > state.day ? current : state.dayStart;
  const peak = current > state.peak ? current : state.peak;
  const { maxBps, dailyBps } = limitDrawdowns({ peak, dayStart }, current);
  return {
    peak,
    dayStart,
    drawdownBps: maxBps,
    dailyDrawdownBps: dailyBps,
    breach: breached(peak, current, limits.maxBps) || breached(dayStart, current, limits.dailyBps),
  };
}

