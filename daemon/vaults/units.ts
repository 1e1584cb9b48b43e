// The API's units against the contract's: percentages (10 = 10%, at most 2 decimals) against basis
// points, and USDC decimal strings against 6-decimal base units. The one tested place for both.
import { decimalPlaces, formatDecimal, parseDecimal, toDecimalString } from "../lib/decimal.js";

export const USDC_DECIMALS = 6;

/** "10.5" or 10.5 -> 1050. Throws RangeError for more than 2 decimals or a non-number. */
export function percentToBps(value: unknown): number {
  const text = toDecimalString(value);
  if (decimalPlaces(text) > 2) throw new RangeError("at most 2 decimals");
  return Number(parseDecimal(text, 2));
}

/** 1050 -> 10.5 (a JSON number: SPEC's drawdowns and shares are numbers). */
export function bpsToPercent(bps: number | bigint): number {
  return Number(formatDecimal(BigInt(bps), 2));
}

/** "12.5" -> 12500000n. Throws RangeError beyond 6 decimals. */
export function usdcToBaseUnits(value: unknown): bigint {
  const text = toDecimalString(value);
  if (decimalPlaces(text) > USDC_DECIMALS) throw new RangeError(`at most ${USDC_DECIMALS} decimals`);
  return parseDecimal(text, USDC_DECIMALS);
}

/** 12500000n or "12500000" -> "12.5" (SPEC's balances are decimal strings). */
export function baseUnitsToUsdc(units: bigint | string): string {
  return formatDecimal(BigInt(units), USDC_DECIMALS);
}
