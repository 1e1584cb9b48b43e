// Vaults: the list, and one vault's terms, balances, positions and open orders (and for its trader the
// order form, cancel and close), chart, money checks, trades and events as they arrive, with the
// actions the API allows each role (close: both; unpause: trader, with the standing against the
// limits, vault-paused.ts; fund: investor; withdraw: closed).
import type { FundPrepare, VaultClose, VaultDetail, VaultEventDataOf, VaultEvents, VaultList, VaultSummary } from "../../../daemon/http/responses.js";
import { fromStream, narrator } from "../../../daemon/events/describe-event.js";
import { act, notice, type App } from "../app.js";
import { get, post } from "../api.js";
import { h, input, replace, table } from "../dom.js";
import type { LiveEvent } from "../events.js";
import { short, usdc, when } from "../format.js";
import { withdrawable } from "../settlement.js";
import { ensureChain, signTypedData, type TypedData } from "../wallet.js";
import { drawdownGauge } from "./drawdown-gauge.js";
import { vaultChart, type BalancePoint } from "./vault-chart.js";
import { showPerformance } from "./vault-performance.js";
import { noOrdersCard, orderScope, pausedBlock } from "./vault-paused.js";
import { tickTimes } from "./ticking.js";
import { vaultChecks } from "./vault-checks.js";
import { tradePanel } from "./trade-panel.js";
import { eventLog } from "./event-log.js";
import { tradesTable } from "./vault-trades.js";

export async function vaultListView(_app: App, view: HTMLElement): Promise<void> {
  const { vaults } = await get<VaultList>("/api/vaults");
  const rows = vaults.map((v) => [
    h("a", { href: `#vault/${v.address}` }, short(v.address)), short(v.investor), short(v.trader),
    usdc(v.initialBalance), usdc(v.currentBalance), listState(v),
    drawdownGauge("drawdown", v.currentDrawdown, v.maxDrawdown), drawdownGauge("daily drawdown", v.currentDailyDrawdown, v.dailyDrawdown),
    when(v.dealDeadline),
  ]);
  replace(view, h("section", { class: "card" }, h("h2", {}, "Vaults"),
    table(["Vault", "Investor", "Trader", "Initial", "Current", "Status", "Drawdown", "Daily drawdown", "Deadline"], rows,
      "No vaults yet: a vault appears when both parties have signed a proposal.", { id: "vaults" })));
}

/** A closed vault is CLOSED, whether or not it was paused when it closed. */
const listState = (v: VaultSummary) => (v.status === "CLOSED" ? "CLOSED" : v.paused ? "PAUSED" : v.status);

/** A BalanceUpdated event's reading, at the time it was observed. */
const pointOf = (d: VaultEventDataOf<"BalanceUpdated">): BalancePoint => ({
  time: d.observedAt, balance: d.balance, peak: d.peakBalance, dayStart: d.dayStartBalance,
});

/** Returns a cleanup (the live subscription and the chart) for when the user leaves the vault. */
export async function vaultDetailView(app: App, view: HTMLElement, address: string): Promise<() => void> {
  const [{ vault }, stored] = await Promise.all([
    get<{ vault: VaultDetail }>(`/api/vaults/${address}`), get<VaultEvents>(`/api/vaults/${address}/events?limit=1000`),
  ]);
  // Only the trader trades the vault's account (the API's rule): the others read the same tables. A
  // paused vault is offered only the orders its breach policy takes.
  let facts = vault;
  const trading = await tradePanel({
    vaultAddress: vault.address, canTrade: roleOf(app, vault) === "trader" && !vault.closed,
    orders: orderScope(vault, roleOf(app, vault)), noOrders: () => noOrdersCard(facts),
  });
  const history = stored.events.flatMap((e) => (e.type === "BalanceUpdated" ? [pointOf(e.data)] : []));
  const chart = vaultChart(vault, history);
  const status = h("section", { class: "card", id: "vault-status" });
  // Told oldest first (a pause with the reading that paused it), listed newest first; live events
  // go on with the same narrator.
  const tell = narrator();
  const log = eventLog();
  for (const e of [...stored.events].reverse()) log.add(e, tell(e, facts));
  const trades = h("div", { id: "vault-trades" }, tradesTable(vault));
  // The actions are rebuilt only when what they offer changes, so a live update never wipes an
  // amount the user is typing.
  const actions = h("div", { id: "vault-actions" });
  let offered = "";
  const render = (v: VaultDetail) => {
    facts = v;
    replace(status, ...statusCard(app, v), pausedBlock(app, v, roleOf(app, v)), actions);
    trading.offer(orderScope(v, roleOf(app, v)));
    const state = `${v.paused}/${v.closed}/${withdrawable(v, roleOf(app, v))}`;
    if (state !== offered) replace(actions, actionBar(app, v, roleOf(app, v)));
    offered = state;
  };
  render(vault);
  const performance = h("section", { class: "card", id: "vault-performance" }, h("h2", {}, "Performance"));
  const refreshPerformance = () => showPerformance(performance, address).catch(() => undefined); // the rest of the page stands without it
  void refreshPerformance();
  const ticking = window.setInterval(() => tickTimes(view), 1000);
  replace(view,
    h("p", {}, h("a", { href: "#vaults" }, "← all vaults")),
    status,
    ...trading.cards,
    h("section", { class: "card" }, h("h2", {}, "Balance, peak and limits"), chart.element),
    performance,
    vaultChecks(vault.address),
    h("section", { class: "card" }, h("h2", {}, "Trades"), trades),
    h("section", { class: "card" }, h("h2", {}, "Events"), log.element));

  let reload: number | undefined;
  // Reads of the detail can answer out of order (a slow one overtaken by the next): only the newest
  // asked is shown, so a stale answer never flips the page back or rebuilds the actions.
  let asked = 0;
  const unsubscribe = app.onEvent((e: LiveEvent) => {
    if (e.vault.toLowerCase() !== address.toLowerCase()) return;
    const event = fromStream(e);
    log.add(event, tell(event, facts), true);
    if (e.type === "BalanceUpdated") chart.add(pointOf(e));
    // The detail (paused, drawdowns, trades) is read again once a burst of events has passed.
    window.clearTimeout(reload);
    reload = window.setTimeout(async () => {
      const mine = ++asked;
      const fresh = (await get<{ vault: VaultDetail }>(`/api/vaults/${address}`).catch(() => undefined))?.vault;
      if (fresh && mine === asked) {
        render(fresh);
        replace(trades, tradesTable(fresh));
        void refreshPerformance();
        void trading.refresh().catch(() => undefined); // as the performance: the rest stands without it
      }
    }, 300);
  });
  return () => {
    unsubscribe();
    window.clearTimeout(reload);
    window.clearInterval(ticking);
    chart.destroy();
  };
}

function roleOf(app: App, v: VaultDetail): string {
  const me = app.address!.toLowerCase();
  return v.investor.toLowerCase() === me ? "investor" : v.trader.toLowerCase() === me ? "trader" : "viewer";
}

function statusCard(app: App, v: VaultDetail): HTMLElement[] {
  const role = roleOf(app, v);
  const policy = v.breachPolicy;
  const e = v.enforcement;
  // Whether the paused vault's exchange account holds what its breach policy allows, and if not why.
  const held = e === null ? null : e.state === "holds" ? `holds since ${when(e.since)}`
    : `${e.state === "failing" ? "FAILING" : "being enforced"} since ${when(e.since)} (${e.attempts} attempts)${e.lastError ? `: ${e.lastError}` : ""}`;
  const state = v.closed ? "CLOSED" : v.paused ? `PAUSED${v.pauseReason ? ` (${v.pauseReason})` : ""}` : v.status;
  return [
    h("h2", {}, "Vault ", h("code", {}, short(v.address)), " ", h("span", { class: `badge ${v.closed ? "" : v.paused ? "bad" : "good"}`, id: "vault-state" }, state)),
    h("dl", { class: "stats" },
      h("dt", {}, "You are"), h("dd", {}, role),
      h("dt", {}, "Investor"), h("dd", {}, h("code", {}, v.investor)),
      h("dt", {}, "Trader"), h("dd", {}, h("code", {}, v.trader)),
      h("dt", {}, "Balance"), h("dd", { id: "vault-balance" }, `${usdc(v.currentBalance)} USDC`),
      h("dt", {}, "Initial / peak"), h("dd", {}, `${usdc(v.initialBalance)} / ${usdc(v.peakBalance)}`),
      h("dt", {}, "Drawdown (of its limit)"), h("dd", {}, drawdownGauge("drawdown", v.currentDrawdown, v.maxDrawdown, "vault-drawdown")),
      h("dt", {}, "Daily drawdown (of its limit)"), h("dd", {}, drawdownGauge("daily drawdown", v.currentDailyDrawdown, v.dailyDrawdown, "vault-daily-drawdown")),
      h("dt", {}, "Profit share trader / investor"), h("dd", {}, `${v.profitShare.trader}% / ${v.profitShare.investor}%`),
      policy ? h("dt", {}, "On a breach") : null, policy ? h("dd", { id: "vault-breach-policy" }, policy) : null,
      held ? h("dt", {}, "Breach policy") : null, held ? h("dd", { id: "vault-enforcement", class: e?.state === "holds" ? "" : "bad" }, held) : null,
      v.positionsAvailable ? null : h("dt", {}, "Positions"),
      v.positionsAvailable ? null : h("dd", { id: "vault-positions-unknown", class: "bad" }, "the exchange could not be read just now: positions unknown"),
      h("dt", {}, "Deadline"), h("dd", {}, when(v.dealDeadline)),
      h("dt", {}, "Last balance update"), h("dd", {}, when(v.lastBalanceUpdate)),
      ...settled(v),
      h("dt", {}, "Escrow funded"), h("dd", {}, `${usdc(v.settlement.funded)} USDC`)),
  ];
}

/** A closed vault's settlement, frozen by the contract at its close (what "if closed now" foretold). */
function settled(v: VaultDetail): HTMLElement[] {
  const s = v.settlement;
  if (!v.closed || s.finalBalance === undefined) return [];
  const paid = `paid so far: trader ${usdc(s.paidTrader ?? "0")}, investor ${usdc(s.paidInvestor ?? "0")} USDC`;
  return [
    h("dt", {}, "Settled at close"),
    h("dd", { id: "vault-settlement" },
      `final balance ${usdc(s.finalBalance)}, profit ${usdc(String(s.profit ?? 0))}: trader ${usdc(String(s.traderShare ?? 0))}, investor ${usdc(String(s.investorShare ?? 0))} USDC; ${paid}`),
  ];
}

function button(label: string, id: string, run: () => Promise<void>): HTMLButtonElement {
  const b = h("button", { type: "button", id }, label);
  b.addEventListener("click", () => act(b, run));
  return b;
}

function actionBar(app: App, v: VaultDetail, role: string): HTMLElement {
  const base = `/api/vaults/${v.address}`;
  const bar = h("div", { class: "actions" });
  if (!v.closed) {
    bar.append(button("Close vault", "vault-close", async () => {
      if (!window.confirm("Close the vault? Orders are canceled, positions flattened, and the profit split.")) return;
      const r = await post<VaultClose>(`${base}/close`);
      const left = r.vault.leftOpen.map((p) => `${p.size} ${p.symbol} (${usdc(p.value)} USDC)`).join(", ");
      const toFund = r.vault.escrow.toFund === "0" ? "" : ` The investor must fund the escrow with ${usdc(r.vault.escrow.toFund)} USDC before the trader can be paid in full.`;
      notice(`Vault closed at ${usdc(r.vault.finalBalance)} USDC (profit ${r.vault.profit}).${left ? ` Left open, below the exchange's minimum order: ${left}.` : ""}${toFund}`);
      app.refresh();
    }));
  }
  if (role === "investor") {
    const amount = input("fundAmount", { placeholder: "USDC", inputmode: "decimal", class: "narrow" });
    bar.append(amount, button("Fund escrow (permit)", "vault-fund", async () => {
      const prep = await post<FundPrepare>(`${base}/fund/prepare`, { amount: amount.value.trim() });
      const td = prep.typedData as TypedData;
      await ensureChain(Number(td.domain.chainId), app.info.chain.rpcUrl, "tradevault chain");
      const signature = await signTypedData(app.address!, td);
      const r = await post<{ amount: string }>(`${base}/fund`, { amount: prep.amount, deadline: prep.deadline, signature });
      notice(`Funded the escrow with ${usdc(r.amount)} USDC.`);
      app.refresh();
    }));
  }
  // Only a party the escrow still owes something is offered Withdraw (the contract's rule, settlement.ts).
  const owed = withdrawable(v, role);
  if (owed !== null) {
    bar.append(button(`Withdraw ${usdc(owed)} USDC`, "vault-withdraw", async () => {
      const r = await post<{ amount: string; recipient: string }>(`${base}/withdraw`);
      notice(`Withdrew ${usdc(r.amount)} USDC to ${r.recipient}.`);
      app.refresh();
    }));
  }
  return bar;
}
