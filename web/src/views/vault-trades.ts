// A vault's trades as a table, for everyone on its page (its events in words: event-log.ts).
import type { VaultDetail } from "../../../daemon/http/responses.js";
import { table } from "../dom.js";
import { figure, usdc, when } from "../format.js";

export function tradesTable(v: VaultDetail): HTMLElement {
  return table(["Time", "Symbol", "Side", "Size", "Price", "PnL (USDC)"],
    v.trades.map((t) => [when(t.timestamp), t.symbol, t.side, figure(t.size), figure(t.price), usdc(String(t.pnl))]), "No trades yet.");
}
