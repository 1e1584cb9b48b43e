// How the vault chart's axes read. Times are UTC, as everywhere on the page: a tick says only what
// changed at it (the year, the month, the day, the minute, the second), so labels stay short enough
// never to run into each other at phone width, and the crosshair says the whole time. Prices are
// grouped by thousands, as the figures beside the chart. Drawing only: these take the chart's numbers.
import { TickMarkType, type Time, type UTCTimestamp } from "lightweight-charts";

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const two = (n: number) => String(n).padStart(2, "0");

/** The chart's series times are Unix seconds (vault-chart.ts adds them so). */
const dateOf = (time: Time) => new Date((time as UTCTimestamp) * 1000);

/** A tick's label: "2026", "Nov", "26 Nov", "14:05", "14:05:30". */
export function tickLabel(time: Time, type: TickMarkType): string {
  const d = dateOf(time);
  switch (type) {
    case TickMarkType.Year: return String(d.getUTCFullYear());
    case TickMarkType.Month: return MONTHS[d.getUTCMonth()]!;
    case TickMarkType.DayOfMonth: return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]}`;
    case TickMarkType.Time: return `${two(d.getUTCHours())}:${two(d.getUTCMinutes())}`;
    default: return `${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}`;
  }
}

/** The crosshair's time: "26 Nov 2026 14:05:30 UTC". */
export function crosshairTime(time: Time): string {
  const d = dateOf(time);
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()} ${tickLabel(time, TickMarkType.TimeWithSeconds)} UTC`;
}

/** A price on the axis: "10,116.70". */
export const axisPrice = (price: number): string =>
  price.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });
