// A vault's performance figures over integers (USDC base units, basis points), from its readings in
// order: the same peak rule as the contract (the peak starts at the initial balance) and the same
// UTC day (Unix seconds / 86 400). Pure: the service feeds it pages of stored rows.
import { decimalPlaces, parseDecimal, rescale } from "../lib/decimal.js";
import { drawdownBps } from "./vault-math.js";

const DAY_S = 86_400;
const BPS = 10_000n;

export interface DailyFigure {
  /** The UTC day, YYYY-MM-DD. */
  day: string;
  closingBalance: bigint;
  /** Change of the closing balance from the previous listed day's (the first day: from the initial balance). */
  pnl: bigint;
}

const dayText = (day: number) => new Date(day * DAY_S * 1000).toISOString().slice(0, 10);

/** Walks the readings once: running peak, deepest drawdown, one closing balance per UTC day. */
export function createReadingWalk(initial: bigint) {
  let peak = initial;
  let worst = { bps: 0, at: null as number | null };
  const daily: DailyFigure[] = [];
  let current: { day: number; balance: bigint } | undefined;
  let previousClose = initial;

  const closeDay = () => {
    if (!current) return;
    daily.push({ day: dayText(current.day), closingBalance: current.balance, pnl: current.balance - previousClose });
    previousClose = current.balance;
  };

  return {
    add(balance: bigint, atSeconds: number): void {
      if (balance > peak) peak = balance;
      const bps = drawdownBps(peak, balance);
      if (bps > worst.bps) worst = { bps, at: atSeconds };
      const day = Math.floor(atSeconds / DAY_S);
      if (current && day !== current.day) closeDay();
      if (!current || day !== current.day) current = { day, balance };
      else current.balance = balance;
    },
    finish() {
      closeDay();
      current = undefined;
      return { maxDrawdownBps: worst.bps, maxDrawdownAt: worst.at, daily };
    },
  };
}

/** profit * 10 000 / reference, toward zero: basis points of `reference`. */
export const returnBps = (initial: bigint, latest: bigint): bigint => (initial > 0n ? ((latest - initial) * BPS) / initial : 0n);

/**
 * Simple annualization, no compounding: the return times 365 days over the seconds elapsed, in basis
 * points toward zero; null before a whole day has elapsed (a minute's return times 525 600 says nothing).
 */
export function annualizedBps(initial: bigint, latest: bigint, elapsedSeconds: number): bigint | null {
  if (initial <= 0n || elapsedSeconds < DAY_S) return null;
  return ((latest - initial) * BPS * 365n * BigInt(DAY_S)) / (initial * BigInt(elapsedSeconds));
}

/** The contract's close() applied to `latest`: the trader shares a profit only, rounded down. */
export function settlementIfClosed(initial: bigint, latest: bigint, traderShareBps: number) {
  const profit = latest - initial;
  const traderShare = profit > 0n ? (profit * BigInt(traderShareBps)) / BPS : 0n;
  return { profit, traderShare, investorShare: profit - traderShare };
}

/** An exact sum of decimal texts, at the largest scale any of them has. */
export function createDecimalSum() {
  let value = 0n;
  let scale = 0;
  return {
    add(text: string): void {
      const places = decimalPlaces(text);
      if (places > scale) {
        value = rescale(value, scale, places);
        scale = places;
      }
      value += parseDecimal(text, scale);
    },
    total: () => ({ value, scale }),
  };
}
