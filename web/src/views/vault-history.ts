// What happened to a vault, for everyone on its page: its trades as a table and its events in words
// (daemon/events/describe-event.ts, the CLI's describer too), each under its title so a long list
// reads at a glance ("Paused", "Fill", "Balance").
import type { VaultDetail } from "../../../daemon/http/responses.js";
import type { DescribableEvent, EventDescription } from "../../../daemon/events/describe-event.js";
import { h, table } from "../dom.js";
import { figure, usdc, when } from "../format.js";

export function tradesTable(v: VaultDetail): HTMLElement {
  return table(["Time", "Symbol", "Side", "Size", "Price", "PnL (USDC)"],
    v.trades.map((t) => [when(t.timestamp), t.symbol, t.side, figure(t.size), figure(t.price), usdc(String(t.pnl))]), "No trades yet.");
}

/** One event: when, its title, and the sentence with its figures. */
export function eventItem(e: DescribableEvent & { time: number }, told: EventDescription, live = false): HTMLElement {
  return h("li", { class: live ? "live" : "", "data-type": e.type },
    h("span", { class: "muted" }, when(e.time)), " ", h("strong", {}, told.title), " ", told.sentence);
}
