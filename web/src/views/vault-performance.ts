// The vault page's Performance card: GET /api/vaults/:address/performance in figures (README
// "Performance figures" defines them), the last days' closing balances, and the CSV exports. "If
// closed now" stands on the vault's last reading, so it says how old that reading is, ticking.
import type { VaultPerformanceResponse } from "../../../daemon/http/responses.js";
import { get } from "../api.js";
import { h, replace, table } from "../dom.js";
import { pct, usdc, when } from "../format.js";
import { readingAge } from "./ticking.js";

type Performance = VaultPerformanceResponse["performance"];

/** How many days the card lists (newest first); the API answers every day. */
const DAYS = 7;

function figures(p: Performance): HTMLElement {
  return h("dl", { class: "stats" },
    h("dt", {}, "Return"), h("dd", { id: "perf-return" }, pct(p.returnPct)),
    h("dt", {}, "Annualized (simple)"), h("dd", { id: "perf-annualized" }, p.annualizedReturnPct === null ? "- (less than a day)" : pct(p.annualizedReturnPct)),
    h("dt", {}, "Max drawdown"), h("dd", { id: "perf-drawdown" }, `${pct(p.maxDrawdownPct)}${p.maxDrawdownAt === null ? "" : ` at ${when(p.maxDrawdownAt)}`}`),
    h("dt", {}, "Fees paid"), h("dd", { id: "perf-fees" }, `${usdc(p.feesPaid)} USDC`),
    h("dt", {}, "Funding paid"), h("dd", { id: "perf-funding" }, p.fundingPaid === null ? "the exchange could not be read just now" : `${usdc(p.fundingPaid)} USDC`),
    // A closed vault has settled: the vault's status card shows its settlement instead.
    ...ifClosedNow(p.ifClosedNow));
}

function ifClosedNow(c: Performance["ifClosedNow"]): HTMLElement[] {
  if (c === null) return [];
  const age = c.asOf === null ? h("span", { id: "perf-if-closed-age" }, "no reading yet: the initial balance") : readingAge(c.asOf, "perf-if-closed-age");
  return [
    h("dt", {}, "If closed now (", age, ")"),
    h("dd", { id: "perf-if-closed" }, `profit ${usdc(c.profit)}, trader ${usdc(c.traderShare)}, investor ${usdc(c.investorShare)} USDC`),
  ];
}

/** Fills `card` with the vault's figures (again on each call: the page calls it after new readings). */
export async function showPerformance(card: HTMLElement, address: string): Promise<void> {
  const { performance: p } = await get<VaultPerformanceResponse>(`/api/vaults/${address}/performance`);
  const days = p.daily.slice(-DAYS).reverse();
  replace(card,
    h("h2", {}, "Performance"),
    figures(p),
    table(["Day (UTC)", "Closing balance", "PnL"], days.map((d) => [d.day, usdc(d.closingBalance), usdc(d.pnl)]), "No reading yet.", { id: "perf-daily" }),
    h("p", { class: "muted" }, "Export: ",
      h("a", { href: `/api/vaults/${address}/trades?format=csv`, id: "export-trades", download: true }, "trades (CSV)"), " · ",
      h("a", { href: `/api/vaults/${address}/events?format=csv`, id: "export-events", download: true }, "events (CSV)")));
}
