// Display formatting only. Amounts arrive as decimal strings and are shown as such (grouped), so
// the page never rounds money through a float.
import { grouped, shortAddress, usdcText, utcTime } from "../../daemon/lib/figures.js";

/** "12345.5" -> "12,345.50": grouped, with its cents, never rounded (as the event sentences and the CLI). */
export const usdc = (text: string | null | undefined): string => (text === null || text === undefined || text === "" ? "-" : usdcText(text));

/** A price or a size (a JSON number from the API, or decimal text): "60,006", "0.01". */
export const figure = grouped;

export const pct = (n: number | null | undefined): string => (n === null || n === undefined ? "-" : `${n}%`);

/** Short addresses and UTC times read as in the event sentences (the one describer's figures). */
export const short = shortAddress;

export const when = (unixSeconds: number | null | undefined): string => (unixSeconds ? utcTime(unixSeconds) : "-");

/** "12.5" percent -> 1250 basis points, exactly (the API takes percentages with 2 decimals). */
export function percentBps(v: string): number {
  const [int = "0", frac = ""] = v.trim().split(".");
  return Number(int) * 100 + Number(frac.padEnd(2, "0").slice(0, 2));
}

export const bpsToPercent = (bps: number): string => `${Math.trunc(bps / 100)}${bps % 100 ? `.${String(bps % 100).padStart(2, "0").replace(/0$/, "")}` : ""}`;

/** How old a reading is: seconds under two minutes, then minutes, hours, days ("42 s", "5 min", "3 h", "12 d"). */
export function ageText(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds)); // a page clock a little behind the daemon's reads as just taken
  if (s < 120) return `${s} s`;
  if (s < 120 * 60) return `${Math.floor(s / 60)} min`;
  if (s < 48 * 3600) return `${Math.floor(s / 3600)} h`;
  return `${Math.floor(s / 86_400)} d`;
}
