// Exact decimal arithmetic over bigint. Money never becomes a JS float: amounts are decimal strings at
// the edges and scaled bigints (value × 10^scale) inside, with every lossy step (division, dropping
// decimals) taking an explicit rounding mode. Also Hyperliquid's price/size precision rules, which
// the sim and the daemon's order validation share.

export type Rounding = "down" | "up" | "floor" | "ceil" | "half-up" | "half-even";

const DECIMAL_RE = /^(-)?(\d+)(?:\.(\d+))?$/;

/** True for plain decimal text: optional minus, digits, optional fraction ("-12.50"); no exponent. */
export function isDecimalString(text: string): boolean {
  return DECIMAL_RE.test(text);
}

export function pow10(n: number): bigint {
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`bad power of ten: ${n}`);
  return 10n ** BigInt(n);
}

/** n / d rounded as asked ("down" = toward zero, "up" = away from zero, "half-up" = half away from zero). */
export function divRound(n: bigint, d: bigint, rounding: Rounding): bigint {
  if (d === 0n) throw new RangeError("division by zero");
  if (d < 0n) {
    n = -n;
    d = -d;
  }
  const q = n / d;
  const r = n % d;
  if (r === 0n) return q;
  const negative = n < 0n;
  const away = negative ? q - 1n : q + 1n;
  switch (rounding) {
    case "down":
      return q;
    case "up":
      return away;
    case "floor":
      return negative ? away : q;
    case "ceil":
      return negative ? q : away;
    case "half-up":
    case "half-even": {
      const twice = 2n * (negative ? -r : r);
      if (twice > d) return away;
      if (twice < d) return q;
      if (rounding === "half-up") return away;
      return q % 2n === 0n ? q : away;
    }
  }
}

/** Changes a scaled value's scale; dropping decimals needs a rounding mode. */
export function rescale(value: bigint, fromScale: number, toScale: number, rounding?: Rounding): bigint {
  if (toScale >= fromScale) return value * pow10(toScale - fromScale);
  const divisor = pow10(fromScale - toScale);
  if (rounding === undefined && value % divisor !== 0n) {
    throw new RangeError(`cannot drop decimals without a rounding mode`);
  }
  return divRound(value, divisor, rounding ?? "down");
}

/**
 * Parses decimal text into value × 10^scale. Text with more decimals than `scale` throws unless a
 * rounding mode is given.
 */
export function parseDecimal(text: string, scale: number, rounding?: Rounding): bigint {
  const m = DECIMAL_RE.exec(text);
  if (!m) throw new RangeError(`not a decimal number: ${JSON.stringify(text)}`);
  const [, minus, int, frac = ""] = m;
  const digits = BigInt(int + frac) * (minus ? -1n : 1n);
  return rescale(digits, frac.length, scale, rounding);
}

/** Formats value × 10^-scale canonically: no trailing zeros, no "-0", no exponent. */
export function formatDecimal(value: bigint, scale: number): string {
  const negative = value < 0n;
  let digits = (negative ? -value : value).toString();
  if (scale > 0) {
    digits = digits.padStart(scale + 1, "0");
    const int = digits.slice(0, -scale);
    const frac = digits.slice(-scale).replace(/0+$/, "");
    digits = frac ? `${int}.${frac}` : int;
  }
  return negative && value !== 0n ? `-${digits}` : digits;
}

/** Number of decimals in the canonical form ("1.50" → 1, "100" → 0). */
export function decimalPlaces(text: string): number {
  const m = DECIMAL_RE.exec(text);
  if (!m) throw new RangeError(`not a decimal number: ${JSON.stringify(text)}`);
  return (m[3] ?? "").replace(/0+$/, "").length;
}

/** Canonical form of decimal text: "0100.50" → "100.5", "-0.0" → "0". */
export function canonicalDecimal(text: string): string {
  const places = decimalPlaces(text);
  return formatDecimal(parseDecimal(text, places, "down"), places);
}

/** Significant figures: digits from the first to the last non-zero one ("0.00120" → 2, "1200" → 2). */
export function significantFigures(text: string): number {
  const digits = canonicalDecimal(text).replace(/^-/, "").replace(".", "");
  const trimmed = digits.replace(/^0+/, "").replace(/0+$/, "");
  return trimmed.length;
}

/** -1, 0 or 1 as a < b, a = b, a > b. */
export function compareDecimal(a: string, b: string): -1 | 0 | 1 {
  const scale = Math.max(decimalPlaces(a), decimalPlaces(b));
  const x = parseDecimal(a, scale, "down");
  const y = parseDecimal(b, scale, "down");
  return x < y ? -1 : x > y ? 1 : 0;
}

/** a - b, exact and canonical ("0.03" - "0.01" → "0.02"). */
export function subtractDecimal(a: string, b: string): string {
  const scale = Math.max(decimalPlaces(a), decimalPlaces(b));
  return formatDecimal(parseDecimal(a, scale, "down") - parseDecimal(b, scale, "down"), scale);
}

/** A JSON number literal: optional minus, digits, optional fraction, optional exponent. */
const NUMBER_LITERAL_RE = /^(-)?(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;
/**
 * The largest exponent a number literal may carry: far beyond any amount here (uint256 holds 78
 * digits), and small enough that "1e999999999" cannot make a billion-digit string.
 */
export const MAX_LITERAL_EXPONENT = 1000;

/**
 * The exact value of a JSON number literal as canonical decimal text, nothing rounded: "1e-7" →
 * "0.0000001", "1.50" → "1.5", "-0" → "0", "0.00999999999999999999" stays as it is. Throws RangeError
 * for text that is no number literal or whose exponent is beyond ±MAX_LITERAL_EXPONENT.
 */
export function numberLiteralToDecimal(literal: string): string {
  const m = NUMBER_LITERAL_RE.exec(literal);
  if (!m) throw new RangeError(`not a number: ${JSON.stringify(literal)}`);
  const [, minus, int, frac = "", exp = "0"] = m;
  const exponent = Number(exp);
  if (!(Math.abs(exponent) <= MAX_LITERAL_EXPONENT)) throw new RangeError(`exponent out of range: ${JSON.stringify(literal)}`);
  const digits = BigInt(int + frac);
  const scale = frac.length - exponent;
  const value = scale >= 0 ? digits : digits * pow10(-scale);
  return formatDecimal(minus ? -value : value, Math.max(scale, 0));
}

/**
 * The shortest decimal text that round-trips a JS number, without exponent (1e-7 → "0.0000001").
 * For numbers computed in JS; a request's numbers keep their own text (numberLiteralToDecimal).
 */
export function numberToDecimalString(n: number): string {
  if (!Number.isFinite(n)) throw new RangeError(`not a finite number: ${n}`);
  return numberLiteralToDecimal(String(n));
}

/** Decimal text from a JSON value that may be a number or a string; anything else throws. */
export function toDecimalString(value: unknown): string {
  if (typeof value === "number") return numberToDecimalString(value);
  if (typeof value === "string" && isDecimalString(value.trim())) return canonicalDecimal(value.trim());
  throw new RangeError(`not a decimal number: ${JSON.stringify(value)}`);
}

/** Fixed-point helpers bound to one scale, so call sites do not repeat it. */
export interface FixedPoint {
  readonly scale: number;
  readonly one: bigint;
  parse(text: string, rounding?: Rounding): bigint;
  /** Canonical text, first rounded to at most `decimals` places when given. */
  format(value: bigint, decimals?: number, rounding?: Rounding): string;
  mul(a: bigint, b: bigint, rounding: Rounding): bigint;
  div(a: bigint, b: bigint, rounding: Rounding): bigint;
  /** Rounds to `decimals` places, keeping the scale. */
  round(value: bigint, decimals: number, rounding: Rounding): bigint;
  fromInt(n: number | bigint): bigint;
}

export function fixed(scale: number): FixedPoint {
  const one = pow10(scale);
  const round = (value: bigint, decimals: number, rounding: Rounding): bigint => {
    if (decimals >= scale) return value;
    const step = pow10(scale - decimals);
    return divRound(value, step, rounding) * step;
  };
  return {
    scale,
    one,
    parse: (text, rounding) => parseDecimal(text, scale, rounding),
    format: (value, decimals, rounding = "half-up") =>
      formatDecimal(decimals === undefined ? value : round(value, decimals, rounding), scale),
    mul: (a, b, rounding) => divRound(a * b, one, rounding),
    div: (a, b, rounding) => divRound(a * one, b, rounding),
    round,
    fromInt: (n) => BigInt(n) * one,
  };
}

// ---- Hyperliquid precision rules -------------------------------------------------------------
// Prices: at most 5 significant figures and at most MAX_DECIMALS - szDecimals decimals (6 for perps,
// 8 for spot); integer prices are always allowed. Sizes: at most szDecimals decimals.

export type MarketKind = "perp" | "spot";
export const MAX_PRICE_SIG_FIGS = 5;

export function maxPriceDecimals(szDecimals: number, kind: MarketKind = "perp"): number {
  return Math.max((kind === "perp" ? 6 : 8) - szDecimals, 0);
}

function isPositive(text: string): boolean {
  return isDecimalString(text) && compareDecimal(text, "0") > 0;
}

export function isValidPrice(px: string, szDecimals: number, kind: MarketKind = "perp"): boolean {
  if (!isPositive(px)) return false;
  const places = decimalPlaces(px);
  if (places === 0) return true;
  return places <= maxPriceDecimals(szDecimals, kind) && significantFigures(px) <= MAX_PRICE_SIG_FIGS;
}

export function isValidSize(sz: string, szDecimals: number): boolean {
  return isPositive(sz) && decimalPlaces(sz) <= szDecimals;
}

/** Decimals a price of this magnitude may keep under both the sig-fig and the decimals rule. */
function allowedPriceDecimals(px: string, szDecimals: number, kind: MarketKind): number {
  const [int, frac = ""] = canonicalDecimal(px).replace(/^-/, "").split(".");
  const maxDecimals = maxPriceDecimals(szDecimals, kind);
  if (int !== "0") return Math.max(0, Math.min(maxDecimals, MAX_PRICE_SIG_FIGS - int.length));
  const leadingZeros = frac.length - frac.replace(/^0+/, "").length;
  return Math.min(maxDecimals, leadingZeros + MAX_PRICE_SIG_FIGS);
}

/** Rounds a positive price to the nearest valid one in the given direction; throws if it becomes 0. */
export function roundPrice(px: string, szDecimals: number, rounding: Rounding, kind: MarketKind = "perp"): string {
  if (!isPositive(px)) throw new RangeError(`price must be positive: ${px}`);
  const decimals = allowedPriceDecimals(px, szDecimals, kind);
  const out = formatDecimal(parseDecimal(px, decimals, rounding), decimals);
  if (out === "0") throw new RangeError(`price ${px} rounds to zero`);
  return out;
}

