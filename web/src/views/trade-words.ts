// Orders, their triggers and their protection in words, for the trade panel's tables and notices
// ("Stop 58,000 (market)", "stop 58,000 waits for the fill"). Figures are grouped as the CLI's.
import type { OpenOrders, TradeResult } from "../../../daemon/http/responses.js";
import { describeProtectionChild } from "../../../daemon/trading/describe-fill.js";
import { figure } from "../format.js";

/** One of an entry's stop and target (POST /api/trade's answer, GET /api/orders' resting entries). */
export type Protection = NonNullable<TradeResult["protection"]>[number];
export type OpenOrder = OpenOrders["orders"][number];

const KIND = { sl: "Stop", tp: "Target" } as const;
/** The words of an entry's stop and target, as the CLI's with the dashboard's names for them. */
export const PROTECTION_NAMES = { sl: "stop", tp: "target" } as const;

/** "Stop 58,000 (market)", "Target 62,000 (limit), triggered"; empty for a plain order. */
export function triggerText(o: OpenOrder): string {
  if (!o.trigger) return "";
  const t = o.trigger;
  return `${KIND[t.kind]} ${figure(t.price)} (${t.market ? "market" : "limit"})${t.triggered ? ", triggered" : ""}`;
}

/** "stop 58,000 waits for the fill" (lower case: it goes inside a sentence). */
export const protectionText = (p: Protection): string => describeProtectionChild(p, PROTECTION_NAMES);

/** An open order's trigger, or the stop and target waiting on it; "-" when it has neither. */
export function orderNote(o: OpenOrder): string {
  const parts = [triggerText(o), ...(o.protection ?? []).map(protectionText)].filter(Boolean);
  return parts.length ? parts.join("; ") : "-";
}

/**
 * The Price column: a limit price, or for a market trigger its wire price, which is only the slippage
 * bound it fills within ("market, bound 54,150"), not a price it waits for.
 */
export const orderPrice = (o: OpenOrder): string =>
  (o.trigger?.market && !o.trigger.triggered ? `market, bound ${figure(o.price)}` : figure(o.price));
