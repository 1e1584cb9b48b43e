// The vault service's views with SPEC's numbers rendered (size, price, pnl, profit, shares): the
// service keeps them exact, the edge turns them into JSON numbers through render.ts.
import type { VaultService } from "../../vaults/vault-service.js";
import type { VaultTrade } from "../../vaults/vault-views.js";
import { num, renderPosition, withNumbers } from "../render.js";
import type { VaultEvent } from "./event-responses.js";
import { pauseReason } from "./vault-responses.js";

type Answered<K extends keyof VaultService> = VaultService[K] extends (...args: never[]) => Promise<infer T> ? T : never;

export const renderTrade = (t: VaultTrade) => withNumbers(t, ["size", "price", "pnl", "fee"] as const);

export function renderDetail(v: Answered<"detail">) {
  const s = v.settlement;
  return {
    ...v,
    // The service names the reason as text; the API promises one of the enum's (checked, not asserted).
    pauseReason: v.pauseReason === null ? null : pauseReason.parse(v.pauseReason),
    settlement: s.profit !== undefined
      ? { ...s, profit: num(s.profit), traderShare: num(s.traderShare!), investorShare: num(s.investorShare!) }
      : { funded: s.funded },
    trades: v.trades.map(renderTrade),
    positions: v.positions.map(renderPosition),
  };
}

export const renderCloseResult = (r: Answered<"close">) => withNumbers(r, ["profit", "traderShare", "investorShare"] as const);

/**
 * Stored events as the VaultEvent records they are. Asserted, not checked: the vault service types an
 * event's `data` as a plain record (vaults/vault-views.ts rowToEvent builds it from the chain log or
 * the daemon's own write), so only the contract tests check each type's data against its schema.
 */
export const storedEvents = (events: Answered<"events">["events"]): VaultEvent[] => events as VaultEvent[];
