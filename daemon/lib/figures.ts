// How figures read for people (the CLI, the dashboard, alerts): amounts grouped by thousands, USDC
// with its cents, percentages, short addresses, times in UTC. Exact: decimal text is regrouped as
// text, never parsed into a float and rounded. A plain module with no imports, so the CLI and the
// dashboard's bundle include it as it is (docs/design.md section 10).

/** A JSON number (or decimal text) as plain decimal text: the shortest round trip, no exponent (1e-7 is "0.0000001"). */
export function plainDecimal(n: number | string): string {
  const text = typeof n === "string" ? n.trim() : String(n);
  const negative = text.startsWith("-");
  const abs = negative ? text.slice(1) : text;
  const m = /^(\d+)(?:\.(\d+))?e([+-]?\d+)$/i.exec(abs);
  if (!m) return text;
  const digits = `${m[1]}${m[2] ?? ""}`;
  const point = m[1]!.length + Number(m[3]);
  const whole = point <= 0 ? `0.${"0".repeat(-point)}${digits}`
    : point >= digits.length ? digits + "0".repeat(point - digits.length)
    : `${digits.slice(0, point)}.${digits.slice(point)}`;
  const trimmed = whole.replace(/^0+(?=\d)/, "").replace(/(\.\d*?)0+$/, "$1").replace(/\.$/, "");
  return `${negative ? "-" : ""}${trimmed}`;
}

/** "59210.5" -> "59,210.5": thousands grouped, the decimals as they are. */
export function grouped(value: number | string): string {
  const [int = "0", frac] = plainDecimal(value).split(".");
  const sign = int.startsWith("-") ? "-" : "";
  const digits = int.replace("-", "").replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return `${sign}${digits}${frac ? `.${frac}` : ""}`;
}

/** USDC: grouped, with at least two decimals and never rounded ("9412.5" -> "9,412.50", "0.000001" stays). */
export function usdcText(value: number | string): string {
  const [int, frac = ""] = grouped(value).split(".");
  return `${int}.${frac.padEnd(2, "0")}`;
}

/** Percent figures arrive as numbers of percent (10 means 10%). */
export const percentText = (n: number): string => `${plainDecimal(n)}%`;

/**
 * How near a drawdown is to its limit, in words, past the limit warnings' 80% of it ("" below):
 * compared in hundredths of a percent, the precision the API gives both.
 */
export function limitNearness(current: number, limit: number): string {
  const [c, l] = [Math.round(current * 100), Math.round(limit * 100)];
  if (l <= 0 || c * 100 < 80 * l) return "";
  return c >= l ? "at the limit" : c * 100 >= 90 * l ? "reached 90% of the limit" : "reached 80% of the limit";
}

/** "4.1% of 5%", and "(reached 80% of the limit)" or nearer after it once past 80% of the limit. */
export function drawdownOfLimit(current: number, limit: number): string {
  const near = limitNearness(current, limit);
  return `${percentText(current)} of ${percentText(limit)}${near ? ` (${near})` : ""}`;
}

/** "0x1234…abcd": enough to tell addresses apart in a sentence. */
export const shortAddress = (address: string): string => `${address.slice(0, 6)}…${address.slice(-4)}`;

/** Unix seconds as "2026-11-26 12:00 UTC". */
export const utcTime = (unixSeconds: number): string =>
  `${new Date(unixSeconds * 1000).toISOString().replace("T", " ").slice(0, 16)} UTC`;

/** "1 order", "2 orders". */
export const count = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/** How long ago, or how long until: seconds under two minutes, then minutes, hours, days ("42 s", "5 min", "3 h", "12 d"). */
export function ageText(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds)); // a clock a little behind the daemon's reads as just taken
  if (s < 120) return `${s} s`;
  if (s < 120 * 60) return `${Math.floor(s / 60)} min`;
  if (s < 48 * 3600) return `${Math.floor(s / 3600)} h`;
  return `${Math.floor(s / 86_400)} d`;
}
