// The one place exact values become JSON numbers (DESIGN section 4): SPEC's numbers (size, price,
// pnl, profit, shares) are kept as decimal strings inside and rendered here, at the edge.
import { checksumAddress } from "../lib/eip55.js";
import type { PositionView } from "../trading/account-views.js";
/** A decimal string as a JSON number (the nearest double: display only, never arithmetic). */
export const num = (decimal: string): number => Number(decimal);

export const numOrNull = (decimal: string | null): number | null => (decimal === null ? null : Number(decimal));

/** Unix milliseconds as Unix seconds (every timestamp but the trade result's). */
export const seconds = (ms: number | null): number | null => (ms === null ? null : Math.floor(ms / 1000));

/** The listed fields of `value` rendered as numbers; the others as they are. */
export function withNumbers<T extends object, K extends keyof T>(value: T, keys: readonly K[]): Omit<T, K> & Record<K, number> {
  const out = { ...value } as Record<string, unknown>;
  for (const k of keys) out[k as string] = num(value[k] as unknown as string);
  return out as Omit<T, K> & Record<K, number>;
}

/** SPEC 2.8: a position with its numbers rendered (liquidationPrice null when there is none). */
export const renderPosition = (p: PositionView) => ({
  ...withNumbers(p, ["size", "entryPrice", "markPrice", "unrealizedPnl"] as const),
  liquidationPrice: numOrNull(p.liquidationPrice),
});

/** An address in EIP-55 form, whatever case a lower layer (the sim, the venue) gave it in (the same kept checksums as the address schema). */
export const checksummed = checksumAddress;
