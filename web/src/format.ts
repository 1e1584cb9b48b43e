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

