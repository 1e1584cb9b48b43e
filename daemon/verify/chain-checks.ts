// The contract's decisions replayed from its own events with the reference rules: every reading
// measured as docs/contracts.md says, a pause exactly where a breach is, an unpause only once
// recovered; and the settlement: the close's figures and every payout the escrow made.
import { formatDecimal } from "../lib/decimal.js";
import type { ChainRecords, InvariantResult } from "./records.js";
import { iso, plural } from "./money-checks.js";
import { applyReading, measure, pauseAllowed, settlementOf, startState, withdrawable } from "./reference-vault.js";

const usdc = (micro: bigint) => formatDecimal(micro, 6);

export function checkBreaches(chain: ChainRecords): InvariantResult {
  const base = { invariant: "breaches" as const };
  const t = chain.terms;
  let s = startState(t);
  let readings = 0;
  let pauses = 0;
  /** The breach bits the reading just before pauses with, when it does. */
  let pausedBy: number | undefined;
  const broken = (what: string, expected: string, actual: string) =>
    ({ ...base, status: "broken" as const, checked: readings, summary: "the contract decided otherwise than its rules", break: { what, expected, actual } });
  for (const e of chain.events) {
    const pending = pausedBy;
    pausedBy = undefined;
    if (pending !== undefined && e.type !== "Paused") return broken(`the reading before block ${e.block}`, `Paused(${pending}) right after it`, `${e.type}`);
    switch (e.type) {
      case "BalanceUpdated": {
        readings++;
        const r = applyReading(s, t, e.balance, e.observedAt, e.day);
        const what = `the reading observed at ${iso(e.observedAt * 1000)} (block ${e.block})`;
        if (r.state.peak !== e.peak || r.state.dayStart !== e.dayStart) return broken(what, `peak ${usdc(r.state.peak)}, day start ${usdc(r.state.dayStart)}`, `peak ${usdc(e.peak)}, day start ${usdc(e.dayStart)}`);
        if (r.drawdownBps !== e.drawdownBps || r.dailyDrawdownBps !== e.dailyDrawdownBps) return broken(what, `drawdowns ${r.drawdownBps}/${r.dailyDrawdownBps} bps`, `${e.drawdownBps}/${e.dailyDrawdownBps} bps`);
        if (r.pausing) pausedBy = r.breaches;
        s = { ...r.state, paused: s.paused };
        break;
      }
      case "Paused":
        if (!pauseAllowed(s, e.reason, pending)) return broken(`Paused(${e.reason}) in block ${e.block}`, "no pause: no breach at the reading before, and not the operator's", "a pause");
        pauses++;
        s = { ...s, paused: true };
        break;
      case "Unpaused": {
        const m = measure(s, t);
        if (!s.paused || m.breaches !== 0) return broken(`Unpaused in block ${e.block}`, "refused: still breached or not paused", `unpaused with breaches ${m.breaches}`);
        s = { ...s, paused: false };
        break;
      }
      case "Closed":
        s = { ...s, closed: true };
        break;
      default:
        break;
    }
  }
  if (pausedBy !== undefined) return broken("the last reading", `Paused(${pausedBy}) right after it`, "no pause");
  return { ...base, status: "holds", checked: readings, summary: `${plural(readings, "reading")} measured as the contract's rules say; ${plural(pauses, "pause")}, each where one belongs` };
}

export function checkSettlement(chain: ChainRecords): InvariantResult {
  const base = { invariant: "settlement" as const };
  const t = chain.terms;
  const closed = chain.events.find((e) => e.type === "Closed");
  if (!closed || closed.type !== "Closed") return { ...base, status: "not-checked", checked: 0, summary: "the vault is not closed" };
  const broken = (what: string, expected: string, actual: string) =>
    ({ ...base, status: "broken" as const, checked: 1, summary: "the settlement differs from the rules", break: { what, expected, actual } });
  const before = chain.events.slice(0, chain.events.indexOf(closed));
  const last = before.filter((e) => e.type === "BalanceUpdated").at(-1);
  const want = settlementOf(t, last && last.type === "BalanceUpdated" ? last.balance : t.initialBalance);
  const got = closed;
  for (const k of ["finalBalance", "profit", "traderShare", "investorShare"] as const) {
    if (want[k] !== got[k]) return broken(`the close's ${k}`, usdc(want[k]), usdc(got[k]));
  }
  let escrow = 0n;
  let traderPaid = 0n;
  let payouts = 0;
  for (const e of chain.events) {
    if (e.type === "TokenIn") escrow += e.amount;
    else if (e.type === "TokenOut") escrow -= e.amount;
    else if (e.type === "Withdrawn") {
      const isTrader = e.party.toLowerCase() === t.trader.toLowerCase();
      const owed = withdrawable(isTrader, want.traderShare, traderPaid, escrow);
      payouts++;
      if (owed !== e.amount) return broken(`the ${isTrader ? "trader" : "investor"}'s withdrawal in block ${e.block}`, usdc(owed), usdc(e.amount));
      if (isTrader) traderPaid += e.amount;
    }
  }
  return { ...base, status: "holds", checked: 1 + payouts, summary: `final balance ${usdc(want.finalBalance)}, profit ${usdc(want.profit)}, trader ${usdc(want.traderShare)}, investor ${usdc(want.investorShare)}; ${plural(payouts, "payout")} as the escrow owed` };
}
