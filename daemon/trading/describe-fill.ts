// What an order filled at once, in words ("filled 0.01 @ 59,210"), for the CLI and the dashboard
// alike. Plain module: its only run-time import is lib/figures.ts (docs/design.md section 10).
import { grouped, plainDecimal } from "../lib/figures.js";

/** The `fill` of POST /api/trade's answer (only what the words need). */
export interface FillFigures {
  size: number;
  averagePrice: number;
}

/** "filled 0.01 @ 59,210", or "filled 0.005 of 0.01 @ ..." when only part of the ordered size filled. */
export function describeFill(fill: FillFigures, orderedSize?: string): string {
  const size = plainDecimal(fill.size);
  const ordered = orderedSize === undefined ? undefined : plainDecimal(orderedSize).replace(/(\.\d*?)0+$/, "$1").replace(/\.$/, "");
  const part = ordered !== undefined && ordered !== size ? ` of ${orderedSize}` : "";
  return `filled ${size}${part} @ ${grouped(fill.averagePrice)}`;
}

/** An entry's stop-loss or take-profit as the answer gives it (only what the words need). */
export interface ProtectionFigures {
  kind: "sl" | "tp";
  price: number;
  status: string;
  error?: string;
}

const PROTECTION_STATUS: Record<string, string> = {
  waitingForFill: "waits for the fill",
  waitingForTrigger: "armed",
  resting: "armed",
  filled: "filled",
  unknown: "not known yet (see the open orders)",
};

/** "stop-loss 58,000 waits for the fill, take-profit 65,000 waits for the fill". */
export function describeProtection(children: ProtectionFigures[]): string {
  return children.map((c) => {
    const what = `${c.kind === "sl" ? "stop-loss" : "take-profit"} ${grouped(c.price)}`;
    return c.status === "rejected" ? `${what} refused: ${c.error ?? "by the exchange"}` : `${what} ${PROTECTION_STATUS[c.status] ?? c.status}`;
  }).join(", ");
}
