// The limit warnings' rule (vaults/limit-warnings.ts): 80% and 90% of a limit each told once per
// crossing, armed again only below 70% of it; a reading past both told once, at 90; nothing while
// paused or from the reading that breaches; both limits measured as the terms measure them.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { crossing, warningsAt } from "../../daemon/vaults/limit-warnings.js";
import type { VaultRow } from "../../daemon/db/schema-chain.js";
import { vaultRow } from "../helpers/rows.js";

/** Walks one limit of `limitBps` through drawdowns (bps), answering the levels told in order. */
function walk(limitBps: number, drawdowns: number[], quiet = false): Array<number | undefined> {
  let warned = 0;
  return drawdowns.map((dd) => {
    const c = crossing(warned, dd, limitBps, quiet);
    warned = c.warned;
    return c.level;
  });
}

test("80% then 90% of the limit, each once; back below 70% arms both again", () => {
  // A 5% limit: 80% of it is 4%, 90% is 4.5%, 70% is 3.5%.
  assert.equal(walk(500, [100, 399, 400, 420, 449, 450, 470, 400, 350, 300, 400, 450]),
    [undefined, undefined, 80, undefined, undefined, 90, undefined, undefined, undefined, undefined, 80, 90]);
});

test("falling back between 70% and 80% arms nothing: the next rise is not told again", () => {
  assert.equal(walk(500, [400, 351, 400, 450, 360, 450, 349, 450]), [80, undefined, undefined, 90, undefined, undefined, undefined, 90]);
});

test("a reading past both levels records one event, at 90, and 80 counts as told", () => {
  assert.equal(walk(1000, [0, 950, 850, 990]), [undefined, 90, undefined, undefined]);
  assert.equal(crossing(0, 950, 1000, false), { warned: 90, level: 90 });
});

test("exactly at a level is reaching it; one basis point short is not", () => {
  assert.equal(crossing(0, 800, 1000, false).level, 80);
  assert.equal(crossing(0, 799, 1000, false).level, undefined);
  // 90% of a 3.33% limit is 2.997%: 300 bps reaches it, 299 does not.
  assert.equal(crossing(80, 300, 333, false).level, 90);
  assert.equal(crossing(80, 299, 333, false).level, undefined);
  // Re-armed below 70% of it: 233.1 bps.
  assert.equal(crossing(90, 233, 333, false).warned, 0);
  assert.equal(crossing(90, 234, 333, false).warned, 90);
});

test("quiet (paused, or the reading breaches): nothing told, but a fall below 70% still arms", () => {
  assert.equal(walk(500, [450, 480], true), [undefined, undefined]);
  assert.equal(crossing(0, 450, 500, true), { warned: 0 });
  assert.equal(crossing(90, 100, 500, true), { warned: 0 });
});

const USDC = 1_000_000n;
const row = (over: Partial<VaultRow>): VaultRow => ({
  ...vaultRow(), num: 1, last_observed_at: 1, paused: 0, pause_reason: null, pause_pos: 0, closed: 0, closed_at: null, final_balance: null,
  profit: null, trader_share: null, investor_share: null, funded_total: "0", paid_trader: "0", paid_investor: "0", event_count: 0,
  deadline_notice: 0, netting_from: null, breach_policy: 0, max_limit_warned: 0, daily_limit_warned: 0,
  max_drawdown_bps: 1000, daily_drawdown_bps: 500, account_mode: null, account_mode_checked_at: null, ...over,
} as VaultRow);
const balances = (peak: bigint, dayStart: bigint, current: bigint) =>
  ({ peak_balance: String(peak * USDC), day_start_balance: String(dayStart * USDC), current_balance: String(current * USDC) });

test("warningsAt: the maximum from the peak, the daily from the day's first balance (limits 10% and 5%)", () => {
  // Peak = day start 10,000, now 9,580: 4.2% is 42% of the maximum's limit, 84% of the daily's.
  assert.equal(warningsAt(row(balances(10_000n, 10_000n, 9_580n))).warnings, [{ limit: "daily", level: 80, drawdownBps: 420, limitBps: 500 }]);
  // Peak 12,000, now 10,900, above the day's start: 9.16% from the peak, 91% of the maximum's limit.
  assert.equal(warningsAt(row(balances(12_000n, 10_000n, 10_900n))).warnings, [{ limit: "max", level: 90, drawdownBps: 916, limitBps: 1000 }]);
  // Both at one reading: 8.76% from the peak of 10,500, 4.2% from the day's start.
  const both = warningsAt(row(balances(10_500n, 10_000n, 9_580n)));
  assert.equal(both.warnings.map((w) => [w.limit, w.level]), [["max", 80], ["daily", 80]]);
  assert.equal(both.change, { max_limit_warned: 80, daily_limit_warned: 80 });
});

test("warningsAt: a reading that breaches either limit warns of neither; a paused vault's readings warn of nothing", () => {
  // Daily 5%: at its limit (the vault pauses); the maximum at 86% of its limit is not told either.
  const breach = warningsAt(row({ ...balances(10_400n, 10_000n, 9_500n), daily_limit_warned: 80 }));
  assert.equal(breach, { change: { max_limit_warned: 0, daily_limit_warned: 80 }, warnings: [] });
  const paused = warningsAt(row({ ...balances(10_000n, 10_000n, 9_580n), paused: 1 }));
  assert.equal(paused.warnings, []);
  // Recovered while paused: armed again.
  assert.equal(warningsAt(row({ ...balances(10_000n, 10_000n, 9_900n), paused: 1, max_limit_warned: 90, daily_limit_warned: 90 })).change,
    { max_limit_warned: 0, daily_limit_warned: 0 });
});

test.run();
