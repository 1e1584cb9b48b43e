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
