// A paused vault on its page: why it paused, what its breach policy still takes (which orders the
// page offers follows from it), where it stands against each limit at its last reading (for a daily
// breach, when its day resets), and what the parties can do: close it, or, the trader, unpause it
// once the balance is back inside both limits. Any refusal the daemon returns is shown as it is.
import type { VaultDetail } from "../../../daemon/http/responses.js";
import { breachPolicyCode, breachPolicyRule } from "../../../daemon/vaults/breach-policies.js";
import { act, notice, type App } from "../app.js";
import { post } from "../api.js";
import { h } from "../dom.js";
import { pct, usdc, when } from "../format.js";
import { countdown, readingAge } from "./ticking.js";
import type { OrderScope } from "./trade-panel.js";

const DAY = 86_400;

const ruleOf = (v: VaultDetail) => breachPolicyRule(breachPolicyCode(v.breachPolicy));

/** The orders the vault's page offers `role`: what the daemon would take (vault-gate.ts's rule). */
export function orderScope(v: VaultDetail, role: string): OrderScope {
  if (role !== "trader" || v.closed) return "none";
  if (!v.paused) return "any";
  return ruleOf(v).reduceOnlyWhilePaused ? "reduce-only" : "none";
}

const REASONS: Record<NonNullable<VaultDetail["pauseReason"]>, string> = {
  maxDrawdown: "its drawdown reached the maximum limit",
  dailyDrawdown: "its daily drawdown reached the limit",
  both: "both drawdowns reached their limits",
  accountMode: "its exchange account left the standard margin mode (the operator paused it)",
};

/** What the breach policy takes while paused, from its rule (breach-policies.ts). */
function policyNow(v: VaultDetail): string {
  const rule = ruleOf(v);
  const takes = rule.reduceOnlyWhilePaused
    ? "takes only orders that reduce a position while paused: reduce-only orders and a position's Close, nothing that could add exposure"
    : rule.enforce.closePositions
      ? "closed its positions, and takes no new order while paused, not even a reduce-only one"
      : "takes no new order while paused, not even a reduce-only one or a position's Close: the position that breached stays open, with its stop loss and take profit still armed";
  return `Its breach policy (${rule.name}) ${takes}. Resting orders can still be canceled.`;
}

const WHAT_NEXT = "Either party can close the vault (its orders are canceled, its positions closed, the profit split); the trader can unpause it once the balance is back inside both limits.";

/** In the order form's place while the vault takes no order: why, and what can be done instead. */
export function noOrdersCard(v: VaultDetail): HTMLElement {
  const why = v.closed ? "The vault is closed." : `The vault is paused: ${REASONS[v.pauseReason ?? "both"]}. ${policyNow(v)}`;
  return h("section", { class: "card", id: "order-card" },
    h("h2", {}, "No new orders while paused"),
    h("p", { id: "order-blocked" }, why, v.closed ? null : ` ${WHAT_NEXT}`));
}

/** Each drawdown against its limit at the last reading, and whether any is still breached. */
function standing(v: VaultDetail): { breached: boolean; lines: HTMLElement[] } {
  const max = v.currentDrawdown >= v.maxDrawdown;
  // The contract's day is the reading's UTC day: the first reading of the next one starts it from 0.
  const reset = v.lastBalanceUpdate === null ? null : (Math.floor(v.lastBalanceUpdate / DAY) + 1) * DAY;
  const newDay = reset !== null && Date.now() / 1000 >= reset;
  const daily = v.currentDailyDrawdown >= v.dailyDrawdown && !newDay;
  const dailyWords = v.currentDailyDrawdown < v.dailyDrawdown ? ["inside"]
    : newDay ? ["breached on that reading's day; a new UTC day has begun since, and its first reading starts it again from 0"]
    : ["still breached. Its day resets at 00:00 UTC, ", h("strong", {}, when(reset)), " (", countdown(reset!, "daily-reset-in"), "), when the new day's first reading starts it again from 0"];
  return {
    breached: max || daily,
    lines: [
      h("li", { id: "standing-max", class: max ? "bad" : "" },
        `Drawdown ${pct(v.currentDrawdown)} of its ${pct(v.maxDrawdown)} limit: `,
        max ? `still breached: it recovers only as the balance comes back toward its peak of ${usdc(v.peakBalance)} USDC` : "inside"),
      h("li", { id: "standing-daily", class: daily ? "bad" : "" }, `Daily drawdown ${pct(v.currentDailyDrawdown)} of its ${pct(v.dailyDrawdown)} limit: `, ...dailyWords),
    ],
  };
}

/** Unpause, for the trader: the contract refuses it while a limit is breached, and the refusal says why. */
function unpauseButton(app: App, v: VaultDetail): HTMLButtonElement {
  const b = h("button", { type: "button", id: "vault-unpause" }, "Unpause");
  b.addEventListener("click", () => act(b, async () => {
    await post(`/api/vaults/${v.address}/unpause`);
    notice("Vault unpaused.");
    app.refresh();
  }));
  return b;
}

/** The block under a paused vault's status; nothing while it is not paused (or once closed). */
export function pausedBlock(app: App, v: VaultDetail, role: string): HTMLElement | null {
  if (!v.paused || v.closed) return null;
  const s = standing(v);
  const mode = v.pauseReason === "accountMode" ? `the exchange account is back in a standard mode (last read: ${v.accountMode ?? "not yet"})` : null;
  const verdict = s.breached
    ? h("p", { id: "unpause-standing", class: "warn" },
      `A limit is still breached at the last reading: the contract refuses an unpause until the balance is back inside both limits${mode ? ` and ${mode}` : ""}.`)
    : h("p", { id: "unpause-standing" },
      `Both drawdowns are inside their limits at the last reading: the trader can unpause${mode ? ` once ${mode}` : ""} (the daemon reads the balance again first).`);
  return h("div", { id: "vault-paused", class: "paused" },
    h("h3", {}, `Paused: ${REASONS[v.pauseReason ?? "both"]}`),
    h("p", {}, policyNow(v)),
    h("p", {}, "Where it stands (", v.lastBalanceUpdate === null ? "no reading yet" : readingAge(v.lastBalanceUpdate, "standing-age"), "):"),
    h("ul", { class: "standing" }, ...s.lines),
    verdict,
    h("p", { class: "muted" }, WHAT_NEXT),
    role === "trader" ? h("div", { class: "actions" }, unpauseButton(app, v)) : null);
}
