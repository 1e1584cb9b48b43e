// Trading an account from the dashboard: the order form, open orders (triggers and the protection
// waiting on an entry, with Cancel) and positions (with Close). Your own account on the account
// screen; a vault's account on its page, where only its trader gets the form and the buttons and
// everyone else reads the same tables. A paused vault takes fewer orders (its breach policy): the
// page offers only those, the reduce-only form or none, and Cancel always.
import type { OpenOrders, Position, Positions, TradeResult } from "../../../daemon/http/responses.js";
import { figure, usdc } from "../format.js";
import { describeFill } from "../../../daemon/trading/describe-fill.js";
import { act, notice, showError } from "../app.js";
import { del, get, post } from "../api.js";
import { h, replace, table } from "../dom.js";
import { orderCard, reduceOnlyCard } from "./trade-form.js";
import { orderNote, orderPrice, type OpenOrder } from "./trade-words.js";

/** Which new orders the form and Close offer: any, only reduce-only ones, or none. */
export type OrderScope = "any" | "reduce-only" | "none";

export interface TradeTarget {
  /** The vault whose account is traded; none for your own. */
  vaultAddress?: string;
  /** Whether Cancel is offered, and the form and Close as `orders` allows (a vault's trader, or your own account). */
  canTrade: boolean;
  /** "any" unless said. */
  orders?: OrderScope;
  /** What stands in the form's place when no order is taken: why, and what can be done instead. */
  noOrders?: () => HTMLElement;
  /** What to redraw after an order, a cancel or a close; by default the panel's own tables. */
  onChange?: () => void;
}

export interface TradePanel {
  /** The form (when the user may trade), open orders, positions. */
  cards: HTMLElement[];
  /** Reads orders and positions again and redraws their tables (the form and what is typed in it stay). */
  refresh(): Promise<void>;
  /** Offers another scope of orders (a vault paused or unpaused); the form is redrawn only if it changes. */
  offer(orders: OrderScope): void;
}

/** `?vaultAddress=` for the reads and the cancel (the routes' query), or nothing for your own account. */
const scope = (t: TradeTarget) => (t.vaultAddress ? `?vaultAddress=${t.vaultAddress}` : "");

/** What the reduce-only form lists: the positions and their sizes (they change only as orders fill). */
const heldKey = (ps: Position[]) => ps.map((p) => `${p.symbol}:${p.size}`).join(",");

export async function tradePanel(t: TradeTarget): Promise<TradePanel> {
  const orders = h("section", { class: "card", id: "orders-card" });
  const positions = h("section", { class: "card", id: "positions-card" });
  let offered: OrderScope = t.orders ?? "any";
  let read: { o: OpenOrders; p: Positions } | undefined;
  let form: HTMLElement = h("section", { class: "card", id: "order-card" });
  let formFor = "";
  const changed = () => (t.onChange ? t.onChange() : void refresh().catch(showError));
  const drawForm = () => {
    const held = read?.p.positions ?? [];
    const key = offered === "reduce-only" ? `${offered}/${heldKey(held)}` : offered;
    if (key === formFor) return;
    formFor = key;
    const next = offered === "any" ? orderCard(changed, t.vaultAddress)
      : offered === "reduce-only" && t.vaultAddress ? reduceOnlyCard(changed, t.vaultAddress, held)
      : t.noOrders?.() ?? h("section", { class: "card", id: "order-card" }, h("p", { id: "order-blocked" }, "No new orders are taken."));
    form.replaceWith(next);
    form = next;
  };
  const draw = () => {
    if (!read) return;
    const close = t.canTrade && offered !== "none";
    replace(orders, h("h2", {}, "Open orders"), ordersTable(t, read.o.orders, changed));
    replace(positions, h("h2", {}, "Positions"), positionsTable(t, close, read.p, changed));
    if (t.canTrade) drawForm();
  };
  const refresh = async () => {
    const [o, p] = await Promise.all([get<OpenOrders>(`/api/orders${scope(t)}`), get<Positions>(`/api/positions${scope(t)}`)]);
    read = { o, p };
    draw();
  };
  await refresh();
  const offer = (next: OrderScope) => {
    if (next === offered) return;
    offered = next;
    draw();
  };
  return { cards: [...(t.canTrade ? [form] : []), orders, positions], refresh, offer };
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

/** `close`: whether Close is offered (a reduce-only market order, refused while a vault takes no order at all). */
function positionsTable(t: TradeTarget, close: boolean, p: Positions, changed: () => void): HTMLElement {
  const rows = p.positions.map((x) => {
    const cells = [x.symbol, figure(x.size), figure(x.entryPrice), figure(x.markPrice), usdc(String(x.unrealizedPnl)),
      x.liquidationPrice === null ? "-" : figure(x.liquidationPrice)];
    if (!close) return cells;
    const b = h("button", { type: "button", class: "small", "data-close": x.symbol }, "Close");
    b.addEventListener("click", () => act(b, async () => {
      const body = t.vaultAddress ? { symbol: x.symbol, vaultAddress: t.vaultAddress } : { symbol: x.symbol };
      const r = await post<TradeResult>("/api/positions/close", body);
      notice(`Closing ${x.symbol}: order ${r.orderId}${r.fill ? `, ${describeFill(r.fill)}` : ""}.`);
      changed();
    }));
    return [...cells, b];
  });
  const headers = ["Symbol", "Size", "Entry", "Mark", "uPnL (USDC)", "Liq.", ...(close ? [""] : [])];
  return table(headers, rows, "No open positions.", { id: "positions" });
}
