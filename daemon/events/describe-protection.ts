// The protection events in words: a stop that did not fill and the close that stood in for it, a
// liquidation and an auto-deleveraging. A vault event and an account's notice of the same name carry
// the same fields, so both describers tell them here. Plain module (figures.ts only), as its callers.
import { grouped, plainDecimal, usdcText } from "../lib/figures.js";

export interface Figure {
  label: string;
  value: string;
}

export type Told = [sentence: string, figures: Figure[]];

interface StopFields { symbol: string; kind: "sl" | "tp"; triggerPrice: string; size: string }
interface ForcedFields { tradeId: string; symbol: string; side: "buy" | "sell"; size: string; price: string; loss: string; markPrice?: string }

const fig = (label: string, value: string): Figure => ({ label, value });
const usdc = (v: string) => `${usdcText(v)} USDC`;
const stopName = (kind: "sl" | "tp") => (kind === "sl" ? "stop-loss" : "take-profit");
const lossWords = (loss: string) => (loss.trim().startsWith("-") ? `a gain of ${usdc(loss.trim().slice(1))}` : `a loss of ${usdc(loss)}`);

export function tellStopFailed(d: StopFields & { orderId: number | null; reason: string }, where: string): Told {
  return [
    `${where}: the ${d.symbol} ${stopName(d.kind)} at ${grouped(d.triggerPrice)} fired but did not fill (${d.reason}); ` +
      `the daemon is closing ${plainDecimal(d.size)} ${d.symbol} at market`,
    [fig("symbol", d.symbol), fig("trigger", `${stopName(d.kind)} at ${grouped(d.triggerPrice)}`), fig("size", plainDecimal(d.size)),
      fig("reason", d.reason), ...(d.orderId === null ? [] : [fig("order", String(d.orderId))])],
  ];
}

export function tellStopFilled(d: StopFields & { price: string; orderId: number; attempts: number }, where: string): Told {
  return [
    `${where}: the ${d.symbol} ${stopName(d.kind)} at ${grouped(d.triggerPrice)} held: closed ${plainDecimal(d.size)} ${d.symbol} at ${grouped(d.price)}` +
      (d.attempts > 1 ? ` after ${d.attempts} attempts` : ""),
    [fig("symbol", d.symbol), fig("trigger", `${stopName(d.kind)} at ${grouped(d.triggerPrice)}`), fig("size", plainDecimal(d.size)),
      fig("price", grouped(d.price)), fig("order", String(d.orderId)), fig("attempts", String(d.attempts))],
  ];
}

/** A liquidation ("liquidated") or an auto-deleveraging ("auto-deleveraged"). */
export function tellForced(d: ForcedFields, where: string, what: "liquidated" | "auto-deleveraged"): Told {
  const mark = d.markPrice === undefined ? "" : ` (mark ${grouped(d.markPrice)})`;
  return [
    `${where}: the exchange ${what} ${plainDecimal(d.size)} ${d.symbol} at ${grouped(d.price)}${mark}, ${lossWords(d.loss)}`,
    [fig("symbol", d.symbol), fig("side", d.side), fig("size", plainDecimal(d.size)), fig("price", grouped(d.price)),
      fig("loss", usdc(d.loss)), ...(d.markPrice === undefined ? [] : [fig("mark", grouped(d.markPrice))]), fig("trade", d.tradeId)],
  ];
}
