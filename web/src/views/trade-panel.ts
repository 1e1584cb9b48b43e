// Trading an account from the dashboard: the order form, open orders (triggers and the protection
// waiting on an entry, with Cancel) and positions (with Close). Your own account on the account
// screen; a vault's account on its page, where only its trader gets the form and the buttons and
// everyone else reads the same tables.
import type { OpenOrders, Positions, TradeResult } from "../../../daemon/http/responses.js";
import { figure, usdc } from "../format.js";
import { describeFill } from "../../../daemon/trading/describe-fill.js";
import { act, notice, showError } from "../app.js";
import { del, get, post } from "../api.js";
import { h, replace, table } from "../dom.js";
import { orderCard } from "./trade-form.js";
import { orderNote, orderPrice, type OpenOrder } from "./trade-words.js";

export interface TradeTarget {
  /** The vault whose account is traded; none for your own. */
  vaultAddress?: string;
  /** Whether the form, Cancel and Close are offered (a vault's trader, or your own account). */
  canTrade: boolean;
  /** What to redraw after an order, a cancel or a close; by default the panel's own tables. */
  onChange?: () => void;
}

export interface TradePanel {
  /** The form (when the user may trade), open orders, positions. */
  cards: HTMLElement[];
  /** Reads orders and positions again and redraws their tables (the form and what is typed in it stay). */
  refresh(): Promise<void>;
}

/** `?vaultAddress=` for the reads and the cancel (the routes' query), or nothing for your own account. */
const scope = (t: TradeTarget) => (t.vaultAddress ? `?vaultAddress=${t.vaultAddress}` : "");

export async function tradePanel(t: TradeTarget): Promise<TradePanel> {
  const orders = h("section", { class: "card", id: "orders-card" });
  const positions = h("section", { class: "card", id: "positions-card" });
  const changed = () => (t.onChange ? t.onChange() : void refresh().catch(showError));
  const refresh = async () => {
    const [o, p] = await Promise.all([get<OpenOrders>(`/api/orders${scope(t)}`), get<Positions>(`/api/positions${scope(t)}`)]);
    replace(orders, h("h2", {}, "Open orders"), ordersTable(t, o.orders, changed));
    replace(positions, h("h2", {}, "Positions"), positionsTable(t, p, changed));
  };
  await refresh();
  return { cards: [...(t.canTrade ? [orderCard(changed, t.vaultAddress)] : []), orders, positions], refresh };
}

function ordersTable(t: TradeTarget, orders: OpenOrder[], changed: () => void): HTMLElement {
  const rows = orders.map((x) => {
    const cells = [String(x.orderId), x.symbol, x.side, figure(x.size), orderPrice(x), orderNote(x)];
    if (!t.canTrade) return cells;
    const b = h("button", { type: "button", class: "small", "data-order": x.orderId }, "Cancel");
    b.addEventListener("click", () => act(b, async () => {
      await del(`/api/orders/${x.orderId}${scope(t)}`);
      notice(`Order ${x.orderId} canceled.`);
      changed();
    }));
    return [...cells, b];
  });
  const headers = ["Id", "Symbol", "Side", "Size", "Price", "Trigger / protection", ...(t.canTrade ? [""] : [])];
  return table(headers, rows, "No open orders.", { id: "orders" });
}

function positionsTable(t: TradeTarget, p: Positions, changed: () => void): HTMLElement {
  const rows = p.positions.map((x) => {
    const cells = [x.symbol, figure(x.size), figure(x.entryPrice), figure(x.markPrice), usdc(String(x.unrealizedPnl)),
      x.liquidationPrice === null ? "-" : figure(x.liquidationPrice)];
    if (!t.canTrade) return cells;
    const b = h("button", { type: "button", class: "small", "data-close": x.symbol }, "Close");
    b.addEventListener("click", () => act(b, async () => {
      const body = t.vaultAddress ? { symbol: x.symbol, vaultAddress: t.vaultAddress } : { symbol: x.symbol };
      const r = await post<TradeResult>("/api/positions/close", body);
      notice(`Closing ${x.symbol}: order ${r.orderId}${r.fill ? `, ${describeFill(r.fill)}` : ""}.`);
      changed();
    }));
    return [...cells, b];
  });
  const headers = ["Symbol", "Size", "Entry", "Mark", "uPnL (USDC)", "Liq.", ...(t.canTrade ? [""] : [])];
  return table(headers, rows, "No open positions.", { id: "positions" });
}
