// The account screen: equity and margin, the agent (approve with the wallet), the order form, open
// orders (cancel) and positions (close).
import type { Account, AgentStatus, OpenOrders, Positions, TradeResult } from "../../../daemon/http/responses.js";
import { describeFill } from "../../../daemon/trading/describe-fill.js";
import { act, notice, type App } from "../app.js";
import { del, get, post } from "../api.js";
import { field, formValues, h, input, replace, select, table } from "../dom.js";
import { usdc } from "../format.js";
import { activeChainId, signTypedData } from "../wallet.js";

export async function accountView(app: App, view: HTMLElement): Promise<void> {
  const [account, orders, positions] = await Promise.all([
    get<Account>("/api/account"), get<OpenOrders>("/api/orders"), get<Positions>("/api/positions"),
  ]);
  replace(view, summaryCard(account), agentCard(app, account), orderCard(app), ordersCard(app, orders), positionsCard(app, positions));
}

function summaryCard(a: Account): HTMLElement {
  const x = a.exchange;
  return h("section", { class: "card", id: "account-card" },
    h("h2", {}, "Account"),
    x.available
      ? h("dl", { class: "stats" },
        h("dt", {}, "Equity"), h("dd", { id: "equity" }, `${usdc(x.accountValue)} USDC`),
        h("dt", {}, "Margin used"), h("dd", { id: "margin" }, `${usdc(x.marginUsed)} USDC`),
        h("dt", {}, "Withdrawable"), h("dd", {}, `${usdc(x.withdrawable)} USDC`),
        h("dt", {}, "Open positions"), h("dd", {}, String(x.openPositions ?? 0)))
      : h("p", { class: "warn" }, `The exchange (${x.kind}) did not answer: ${x.error ?? "unavailable"}`));
}

function agentCard(app: App, a: Account): HTMLElement {
  const approved = a.agent?.approved === true;
  const button = h("button", { type: "button", id: "approve-agent" }, approved ? "Approve a fresh agent" : "Approve agent");
  button.addEventListener("click", () => act(button, async () => {
    // Hyperliquid accepts any signatureChainId, and wallets sign only for their active chain.
    const chainHex = "0x" + (await activeChainId()).toString(16);
    const status = await get<AgentStatus>(`/api/agent?signatureChainId=${chainHex}`);
    if (!status.approval) return notice("Your agent is already approved.");
    const signature = await signTypedData(app.address!, status.approval.typedData as never);
    await post("/api/agent/approve", { nonce: status.approval.nonce, signature, signatureChainId: chainHex });
    notice("Agent approved: orders are signed by it from now on.");
    app.refresh();
  }));
  return h("section", { class: "card" },
    h("h2", {}, "Agent"),
    h("p", { id: "agent-status" }, approved
      ? `Approved (${a.agent!.address}); it can trade, never withdraw.`
      : "Not approved yet: your wallet signs approveAgent once, then the daemon's agent key signs your orders."),
    approved ? null : button);
}

function orderCard(app: App): HTMLElement {
  const form = h("form", { id: "order-form", class: "grid" },
    field("Symbol", input("symbol", { value: "BTC", required: true })),
    field("Side", select("side", [["buy", "Buy"], ["sell", "Sell"]])),
    field("Size", input("size", { inputmode: "decimal", required: true, placeholder: "0.01" })),
    field("Limit price (empty: market)", input("price", { inputmode: "decimal" })),
    field("Time in force", select("tif", [["GTC", "GTC"], ["IOC", "IOC"], ["ALO", "ALO"]])),
    field("Vault (trade its account)", input("vaultAddress", { placeholder: "0x… (optional)" })),
    h("label", { class: "check" }, h("input", { type: "checkbox", name: "reduceOnly" }), " Reduce only"),
    h("button", { type: "submit", id: "place-order" }, "Place order"));
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const v = formValues(form);
    void act(form.querySelector("button"), async () => {
      const body: Record<string, unknown> = { symbol: v.symbol!.toUpperCase(), side: v.side, size: v.size };
      if (v.price) Object.assign(body, { price: v.price, tif: v.tif });
      if (v.reduceOnly) body.reduceOnly = true;
      if (v.vaultAddress) body.vaultAddress = v.vaultAddress;
      const r = await post<TradeResult>("/api/trade", body);
      notice(`Order ${r.orderId} submitted${r.fill ? `, ${describeFill(r.fill, String(v.size))}` : ""}.`);
      app.refresh();
    });
  });
  return h("section", { class: "card" }, h("h2", {}, "Place an order"), form);
}

function ordersCard(app: App, o: OpenOrders): HTMLElement {
  const rows = o.orders.map((x) => {
    const b = h("button", { type: "button", class: "small", "data-order": x.orderId }, "Cancel");
    b.addEventListener("click", () => act(b, async () => {
      await del(`/api/orders/${x.orderId}`);
      notice(`Order ${x.orderId} canceled.`);
      app.refresh();
    }));
    return [String(x.orderId), x.symbol, x.side, String(x.size), String(x.price), b];
  });
  return h("section", { class: "card" }, h("h2", {}, "Open orders"),
    table(["Id", "Symbol", "Side", "Size", "Price", ""], rows, "No open orders.", { id: "orders" }));
}

function positionsCard(app: App, p: Positions): HTMLElement {
  const rows = p.positions.map((x) => {
    const b = h("button", { type: "button", class: "small", "data-close": x.symbol }, "Close");
    b.addEventListener("click", () => act(b, async () => {
      const r = await post<TradeResult>("/api/positions/close", { symbol: x.symbol });
      notice(`Closing ${x.symbol}: order ${r.orderId}${r.fill ? `, ${describeFill(r.fill)}` : ""}.`);
      app.refresh();
    }));
    return [x.symbol, String(x.size), String(x.entryPrice), String(x.markPrice), String(x.unrealizedPnl), x.liquidationPrice === null ? "-" : String(x.liquidationPrice), b];
  });
  return h("section", { class: "card" }, h("h2", {}, "Positions"),
    table(["Symbol", "Size", "Entry", "Mark", "uPnL", "Liq.", ""], rows, "No open positions.", { id: "positions" }));
}
