// What an order did at once: the filled size and its average price, computed exactly (decimal
// strings and bigint, never float arithmetic) from the fills GET /api/orders/:orderId reports.
import type { OneOrder } from "../daemon/http/responses.js";

export interface FillSummary {
  status: string;
  size: number;
  averagePrice: number;
  fills: number;
}

/** A JSON number as plain decimal text: the shortest round-trip form, without exponent (1e-7). */
export function plainDecimal(n: number): string {
  const text = String(Math.abs(n));
  const m = /^(\d+)(?:\.(\d+))?e([+-]\d+)$/.exec(text);
  if (!m) return `${n < 0 ? "-" : ""}${text}`;
  const digits = `${m[1]}${m[2] ?? ""}`;
  const point = m[1]!.length + Number(m[3]);
  const whole = point <= 0 ? `0.${"0".repeat(-point)}${digits}` : point >= digits.length ? digits + "0".repeat(point - digits.length) : `${digits.slice(0, point)}.${digits.slice(point)}`;
  return `${n < 0 ? "-" : ""}${whole.replace(/(\.\d*?)0+$/, "$1").replace(/\.$/, "")}`;
}

const decimalsOf = (text: string) => (text.split(".")[1] ?? "").length;
const scaled = (text: string, decimals: number) => {
  const [int, frac = ""] = text.split(".");
  return BigInt(`${int}${frac.padEnd(decimals, "0")}`);
};
const unscale = (v: bigint, decimals: number) => {
  const s = v.toString().padStart(decimals + 1, "0");
  const text = decimals === 0 ? s : `${s.slice(0, -decimals)}.${s.slice(-decimals)}`;
  return decimals === 0 ? text : text.replace(/\.?0+$/, "");
};

/** Size-weighted average price, rounded half-up to the finest decimals among the fill prices. */
export function averagePrice(fills: Array<{ size: number; price: number }>): string {
  const sizes = fills.map((f) => plainDecimal(f.size));
  const prices = fills.map((f) => plainDecimal(f.price));
  const sd = Math.max(...sizes.map(decimalsOf));
  const pd = Math.max(...prices.map(decimalsOf));
  const notional = sizes.reduce((sum, s, i) => sum + scaled(s, sd) * scaled(prices[i]!, pd), 0n);
  const total = sizes.reduce((sum, s) => sum + scaled(s, sd), 0n);
  return unscale((2n * notional + total) / (2n * total), pd);
}

export function summarizeFill(order: OneOrder["order"]): FillSummary | undefined {
  if (order.fills.length === 0) return undefined;
  const sd = Math.max(...order.fills.map((f) => decimalsOf(plainDecimal(f.size))));
  const size = order.fills.reduce((sum, f) => sum + scaled(plainDecimal(f.size), sd), 0n);
  return { status: order.status, size: Number(unscale(size, sd)), averagePrice: Number(averagePrice(order.fills)), fills: order.fills.length };
}

/** 59210.5 -> "59,210.5": thousands grouped, the decimals as they are. */
export function grouped(n: number): string {
  const [int, frac] = plainDecimal(n).split(".");
  return `${int!.replace(/\B(?=(\d{3})+(?!\d))/g, ",")}${frac ? `.${frac}` : ""}`;
}

/** "filled 0.01 @ 59,210", or "filled 0.005 of 0.01 @ ..." when part of the order still rests. */
export function describeFill(fill: FillSummary, orderedSize?: string): string {
  const norm = (t: string) => (t.includes(".") ? t.replace(/\.?0+$/, "") : t);
  const part = orderedSize !== undefined && norm(orderedSize) !== plainDecimal(fill.size) ? ` of ${orderedSize}` : "";
  return `filled ${plainDecimal(fill.size)}${part} @ ${grouped(fill.averagePrice)}`;
}
