// How far one API call may move a sim price. Exact: prices are compared as bigint at 18 decimals.
// The sim's own loopback control (/sim/price) is not bounded: it serves the machine's own users.
import { AppError } from "../errors.js";
import { formatDecimal, parseDecimal } from "../lib/decimal.js";

const SCALE = 18;
/** One move goes at most this many percent from the current mark. */
export const MAX_MOVE_PERCENT = 20n;
/** A price stays within start / BAND and start * BAND, start being the mark when the daemon started. */
export const BAND = 10n;

const fail = (message: string) => new AppError("INVALID_INPUT", message, { details: [{ field: "body.price", message }] });

function scaled(text: string): bigint {
  try {
    return parseDecimal(text, SCALE);
  } catch {
    throw fail(`price ${text} must be a decimal number with at most ${SCALE} decimals`);
  }
}

/** Throws INVALID_INPUT naming the bound when `price` may not follow `mark` (all decimal text). */
export function checkPriceMove(symbol: string, price: string, mark: string, start: string): void {
  const p = scaled(price);
  const m = scaled(mark);
  const s = scaled(start);
  if (p * BAND < s || p > s * BAND) {
    throw fail(
      `${symbol} ${price} is outside 0.1x to 10x of its price when the daemon started (${formatDecimal(s, SCALE)}): ` +
        `from ${formatDecimal(s, SCALE + 1)} to ${formatDecimal(s * BAND, SCALE)}`,
    );
  }
  const distance = p > m ? p - m : m - p;
  if (distance * 100n > m * MAX_MOVE_PERCENT) {
    throw fail(
      `${symbol} ${price} is more than ${MAX_MOVE_PERCENT}% from its mark ${formatDecimal(m, SCALE)}; one move may go ` +
        `from ${formatDecimal(m * (100n - MAX_MOVE_PERCENT), SCALE + 2)} to ${formatDecimal(m * (100n + MAX_MOVE_PERCENT), SCALE + 2)}`,
    );
  }
}
