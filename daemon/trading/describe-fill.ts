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

/** What each kind is called: the CLI says "stop-loss" and "take-profit", the dashboard "stop" and "target". */
export type ProtectionNames = Record<ProtectionFigures["kind"], string>;

const CLI_NAMES: ProtectionNames = { sl: "stop-loss", tp: "take-profit" };

const PROTECTION_STATUS: Record<string, string> = {
  waitingForFill: "waits for the fill",
  waitingForTrigger: "waits for its trigger",
  resting: "rests",
  filled: "filled",
  rejected: "was rejected",
  unknown: "is unknown (the exchange's answer was lost)",
};

/** "stop-loss 58,000 waits for the fill", "target 64,000 was rejected: too close". */
export function describeProtectionChild(c: ProtectionFigures, names: ProtectionNames = CLI_NAMES): string {
  return `${names[c.kind]} ${grouped(c.price)} ${PROTECTION_STATUS[c.status] ?? c.status}${c.error ? `: ${c.error}` : ""}`;
}

/** "stop-loss 58,000 waits for the fill, take-profit 65,000 waits for the fill". */
export function describeProtection(children: ProtectionFigures[], names: ProtectionNames = CLI_NAMES): string {
  return children.map((c) => describeProtectionChild(c, names)).join(", ");
}
