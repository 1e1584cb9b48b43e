// Arguments the CLI can check itself, checked before any network call, in the CLI's own words
// (flag names, not the daemon's field names). Each returns the value to send or throws exit 2.
import { DATE_FORMS, parseDateBound } from "../daemon/lib/date-bound.js";
import { usageError } from "./errors.js";

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const DECIMAL = /^\d+(\.\d+)?$/;

export function addressArg(name: string, value: string): string {
  if (!ADDRESS.test(value)) throw usageError(`${name} must be an address (0x and 40 hex digits), got "${value}"`);
  return value;
}

/** A plain decimal above 0 (sizes, prices, amounts): "-1", "0" and "lots" get the one message. */
export function positiveArg(name: string, value: string): string {
  if (!DECIMAL.test(value) || !/[1-9]/.test(value)) throw usageError(`${name} must be a number above 0, got "${value}"`);
  return value;
}

/** A whole number in [min, max]. */
export function integerArg(name: string, value: string, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  const n = /^\d{1,16}$/.test(value) ? Number(value) : NaN;
  if (!(n >= min && n <= max)) {
    const range = max === Number.MAX_SAFE_INTEGER ? `${min} or more` : `from ${min} to ${max}`;
    throw usageError(`${name} must be a whole number ${range}, got "${value}"`);
  }
  return n;
}

export const orderIdArg = (value: string) => integerArg("the order id", value, 1);

/**
 * A date bound, by the daemon's own rule (daemon/lib/date-bound.ts): an ISO date or date-time (UTC
 * when it names no zone) or Unix seconds; a day, time or offset that does not exist is refused here.
 */
export function dateArg(name: string, value: string): string {
  const parsed = parseDateBound(value, false);
  if (typeof parsed === "number") return value;
  const why = parsed === DATE_FORMS ? "" : ` (${parsed})`;
  throw usageError(`${name} must be a date (2026-11-01), a date-time (2026-11-01T12:00:00Z, UTC unless it names a zone) or Unix seconds, got "${value}"${why}`);
}
