// The sim's one fixed-point scale and its display rules. Every amount inside the sim is a bigint at
// 18 decimals: prices (<= 6 decimals) times sizes (<= 5 decimals) and fee rates stay exact, and the
// only rounding happens where a value leaves the engine (balances at 6 decimals, like USDC).
import { fixed, type Rounding } from "../lib/decimal.js";

export const F = fixed(18);
export const USD_DECIMALS = 6;
/** Computed prices (entry, average, liquidation) are shown with at most this many decimals. */
export const PX_DISPLAY_DECIMALS = 6;

export const abs = (v: bigint): bigint => (v < 0n ? -v : v);
export const sign = (v: bigint): bigint => (v > 0n ? 1n : v < 0n ? -1n : 0n);
export const min = (a: bigint, b: bigint): bigint => (a < b ? a : b);
export const max = (a: bigint, b: bigint): bigint => (a > b ? a : b);

/** Rounds a USD amount to whole micro-dollars, keeping the scale. */
export const roundUsd = (v: bigint, rounding: Rounding = "half-up"): bigint => F.round(v, USD_DECIMALS, rounding);

/** The venue writes whole numbers with one decimal ("60000.0", "0.0") in everything it answers. */
export const wire = (text: string): string => (text.includes(".") ? text : `${text}.0`);

/** Display text for USD amounts (6 decimals at most). */
export const usd = (v: bigint): string => wire(F.format(v, USD_DECIMALS, "half-up"));

/** Display text for computed prices. */
export const px = (v: bigint): string => wire(F.format(v, PX_DISPLAY_DECIMALS, "half-up"));

/** Exact text of a stored value (prices and sizes that came in as text, cost bases). */
export const exact = (v: bigint): string => wire(F.format(v));

