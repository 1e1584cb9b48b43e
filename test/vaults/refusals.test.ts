// The unpause refusal's words by which limit is still breached: the daily one clears at the next
// 00:00 UTC (named, with its time in details), the maximum only when the balance recovers.
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { VaultRow } from "../../daemon/db/schema-chain.js";
import { nextUtcMidnight, notRecovered } from "../../daemon/vaults/refusals.js";

const VAULT = "0x14791697260E4c9A71f18484C9f997B308e59325";
/** A vault of 10 000 (base units of 6 decimals) with limits of 10% and 5%, at `current` from `peak` and `dayStart`. */
const row = (peak: number, dayStart: number, current: number) => ({
  address: VAULT, peak_balance: String(peak * 1e6), day_start_balance: String(dayStart * 1e6), current_balance: String(current * 1e6),
  max_drawdown_bps: 1000, daily_drawdown_bps: 500,
}) as VaultRow;

/** 2026-11-26T18:30:15Z. */
const NOW = Date.UTC(2026, 10, 26, 18, 30, 15);
const MIDNIGHT = Date.UTC(2026, 10, 27) / 1000;

test("the next 00:00 UTC: the contract's day is block.timestamp / 86400", () => {
  assert.is(nextUtcMidnight(NOW / 1000), MIDNIGHT);
  assert.is(nextUtcMidnight(MIDNIGHT - 1), MIDNIGHT);
  assert.is(nextUtcMidnight(MIDNIGHT), MIDNIGHT + 86_400, "at midnight the day has just reset: the next is a day on");
});

test("only the daily limit breached: it resets at 00:00 UTC, when and how long from now", () => {
  const e = notRecovered(row(10_000, 10_000, 9_400), NOW);
  assert.is(e.code, "NOT_RECOVERED");
  assert.match(e.message, "daily drawdown 6% (limit 5%)");
  assert.match(e.message, "the daily limit's day resets at 00:00 UTC, next at 2026-11-27T00:00:00Z (in 5 h 29 min), when the day starts again from the balance then: unpause after it");
  assert.equal(e.details, { maxDrawdown: 10, dailyDrawdown: 5, currentDrawdown: 6, currentDailyDrawdown: 6, dailyResetAt: MIDNIGHT });
  assert.equal(e.next, [{ action: "closeVault", vault: VAULT }]);
  assert.match(notRecovered(row(10_000, 10_000, 9_400), (MIDNIGHT - 90) * 1000).message, "(in 1 min)");
  assert.match(notRecovered(row(10_000, 10_000, 9_400), (MIDNIGHT - 30) * 1000).message, "(in 30 s)");
});

test("both limits breached: the reset is named, and that the drawdown from the peak must recover too", () => {
  const e = notRecovered(row(10_000, 10_000, 8_800), NOW);
  assert.match(e.message, "next at 2026-11-27T00:00:00Z (in 5 h 29 min), but the drawdown from the peak must come back inside its limit too");
  assert.is((e.details as { dailyResetAt: number }).dailyResetAt, MIDNIGHT);
});

test("only the maximum breached (a later day): no reset to wait for, and none in details", () => {
  const e = notRecovered(row(10_000, 8_900, 8_850), NOW);
  assert.not.match(e.message, /00:00 UTC|resets/);
  assert.match(e.message, "unpause once both are inside their limits, or close the vault");
  assert.equal(e.details, { maxDrawdown: 10, dailyDrawdown: 5, currentDrawdown: 11.5, currentDailyDrawdown: 0.56 });
});

test.run();
