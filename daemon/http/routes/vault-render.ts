// The vault service's views with SPEC's numbers rendered (size, price, pnl, profit, shares): the
// service keeps them exact, the edge turns them into JSON numbers through render.ts.
import type { PositionView } from "../../trading/account-views.js";
import type { VaultDetail, VaultTrade } from "../../vaults/vault-views.js";
import { num, renderPosition, withNumbers } from "../render.js";

export const renderTrade = (t: VaultTrade) => withNumbers(t, ["size", "price", "pnl", "fee"] as const);

export function renderDetail(v: VaultDetail & { trades: VaultTrade[]; positions: PositionView[] }) {
  const s = v.settlement;
  return {
    ...v,
    settlement: s.profit !== undefined
      ? { ...s, profit: num(s.profit), traderShare: num(s.traderShare!), investorShare: num(s.investorShare!) }
      : { funded: s.funded },
    trades: v.trades.map(renderTrade),
    positions: v.positions.map(renderPosition),
  };
}

export const renderCloseResult = (r: { address: string; status: "CLOSED"; finalBalance: string; profit: string; traderShare: string; investorShare: string }) =>
  withNumbers(r, ["profit", "traderShare", "investorShare"] as const);
