// The one order form, for your own account (account screen) and for a vault you trade (vault page):
// symbol, side, size, a limit price or none (market), reduce-only, and an optional stop loss and take
// profit sent with the entry (POST /api/trade's stopLoss / takeProfit). The answer is told in the
// notice, with what filled at once and the state of each protection. A paused vault whose breach
// policy takes only reduce-only orders gets the reduce-only form instead: a position to reduce, the
// size to take off, a price or market; the side is the one that reduces it.
import type { Position, TradeResult } from "../../../daemon/http/responses.js";
import { describeFill } from "../../../daemon/trading/describe-fill.js";
import { act, notice } from "../app.js";
import { post } from "../api.js";
import { field, formValues, h, input, select } from "../dom.js";
import { figure } from "../format.js";
import { protectionText } from "./trade-words.js";

/** POST /api/trade's body from the form's values (exactly the names SPEC 2.4 and the route take). */
export function tradeBody(v: Record<string, string>, vaultAddress?: string): Record<string, unknown> {
  const body: Record<string, unknown> = { symbol: v.symbol!.toUpperCase(), side: v.side, size: v.size };
  if (v.price) Object.assign(body, { price: v.price, tif: v.tif });
  if (v.reduceOnly) body.reduceOnly = true;
  if (v.stopLoss) body.stopLoss = { price: v.stopLoss };
  if (v.takeProfit) body.takeProfit = { price: v.takeProfit };
  if (vaultAddress) body.vaultAddress = vaultAddress;
  return body;
}

/** "Order 12 submitted, filled 0.01 @ 60,039; stop 58,000 waits for the fill." */
export function placedText(r: TradeResult, size: string): string {
  const filled = r.fill ? `, ${describeFill(r.fill, size)}` : "";
  const protection = (r.protection ?? []).map(protectionText).join(", ");
  return `Order ${r.orderId} submitted${filled}${protection ? `; ${protection}` : ""}.`;
}

/** Sends the form's order and tells its answer; `placed` redraws what it changed. */
function onSubmit(form: HTMLFormElement, body: (v: Record<string, string>) => Record<string, unknown>, placed: () => void): void {
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const v = formValues(form);
    void act(form.querySelector("button"), async () => {
      const r = await post<TradeResult>("/api/trade", body(v));
      notice(placedText(r, String(v.size)));
      placed();
    });
  });
}

/** `placed` redraws what the order changed. */
export function orderCard(placed: () => void, vaultAddress?: string): HTMLElement {
  const form = h("form", { id: "order-form", class: "grid" },
    field("Symbol", input("symbol", { value: "BTC", required: true })),
    field("Side", select("side", [["buy", "Buy"], ["sell", "Sell"]])),
    field("Size", input("size", { inputmode: "decimal", required: true, placeholder: "0.01" })),
    field("Limit price (empty: market)", input("price", { inputmode: "decimal" })),
    field("Time in force", select("tif", [["GTC", "GTC"], ["IOC", "IOC"], ["ALO", "ALO"]])),
    field("Stop loss (optional)", input("stopLoss", { inputmode: "decimal", placeholder: "trigger price" })),
    field("Take profit (optional)", input("takeProfit", { inputmode: "decimal", placeholder: "trigger price" })),
    h("label", { class: "check" }, h("input", { type: "checkbox", name: "reduceOnly" }), " Reduce only"),
    h("button", { type: "submit", id: "place-order" }, "Place order"));
  onSubmit(form, (v) => tradeBody(v, vaultAddress), placed);
  const title = vaultAddress ? "Place an order for the vault" : "Place an order";
  return h("section", { class: "card", id: "order-card" }, h("h2", {}, title), form);
}

/** "BTC: long 0.1", and the side that reduces it. */
const held = (p: Position) => ({ label: `${p.symbol}: ${p.size < 0 ? "short" : "long"} ${figure(Math.abs(p.size))}`, side: p.size < 0 ? "buy" : "sell" });

/** Only orders that reduce one of `positions` (reduce-only, on the side opposite the position). */
export function reduceOnlyCard(placed: () => void, vaultAddress: string, positions: Position[]): HTMLElement {
  const card = h("section", { class: "card", id: "order-card" }, h("h2", {}, "Reduce a position (reduce-only)"));
  if (positions.length === 0) {
    card.append(h("p", { id: "order-blocked" }, "The vault holds no position: there is nothing to reduce."));
    return card;
  }
  const size = input("size", { inputmode: "decimal", required: true });
  const symbol = select("symbol", positions.map((p) => [p.symbol, held(p).label]));
  const hint = () => size.setAttribute("placeholder", `up to ${figure(Math.abs(positions[symbol.selectedIndex]!.size))}`);
  symbol.addEventListener("change", hint);
  hint();
  const form = h("form", { id: "order-form", class: "grid", "data-reduce-only": true },
    field("Position", symbol),
    field("Size to take off", size),
    field("Limit price (empty: market)", input("price", { inputmode: "decimal" })),
    field("Time in force", select("tif", [["GTC", "GTC"], ["IOC", "IOC"], ["ALO", "ALO"]])),
    h("button", { type: "submit", id: "place-order" }, "Place reduce-only order"));
  onSubmit(form, (v) => {
    const p = positions.find((x) => x.symbol === v.symbol)!;
    return tradeBody({ symbol: p.symbol, side: held(p).side, size: v.size!, price: v.price!, tif: v.tif!, reduceOnly: "true" }, vaultAddress);
  }, placed);
  card.append(h("p", { class: "muted" }, "Paused under its reduce-only policy: only orders that take a position down are taken, and each is sent reduce-only."), form);
  return card;
}
