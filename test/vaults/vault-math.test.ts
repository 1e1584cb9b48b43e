// vault-math at its exact boundaries: the daemon's pre-trade check must reach the same verdict as
// TradingVault, so a breach is AT the limit, reported drawdowns round down, external transfers round
// against the vault, and the first reading and each new UTC day set the day's reference.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { assess, breached, drawdownBps, externalTotal, netBalance } from "../../daemon/vaults/vault-math.js";
import type { RiskState } from "../../daemon/vaults/vault-math.js";

const USDC = 1_000_000n;
const DAY = 86_400;

test("breached: exactly at the limit is a breach, one base unit short is not", () => {
  // 5% of 10,000 USDC is 500 USDC.
  assert.is(breached(10_000n * USDC, 9_500n * USDC, 500), true);
  assert.is(breached(10_000n * USDC, 9_500n * USDC + 1n, 500), false);
  assert.is(breached(10_000n * USDC, 9_500n * USDC - 1n, 500), true);
  // 3333 bps of 1,000,003 is 333,300.9999: exact integers, no rounded percentage.
  assert.is(breached(1_000_003n, 1_000_003n - 333_300n, 3_333), false);
  assert.is(breached(1_000_003n, 1_000_003n - 333_301n, 3_333), true);
});

test("breached: no drop is never a breach, also with a zero reference or a 100% limit", () => {
  assert.is(breached(10n, 10n, 1), false);
  assert.is(breached(10n, 11n, 1), false);
  assert.is(breached(0n, 0n, 1), false);
  assert.is(breached(10n, 1n, 10_000), false);
  assert.is(breached(10n, 0n, 10_000), true);
});

test("drawdownBps rounds down and is 0 without a drop", () => {
  assert.is(drawdownBps(1_000_003n, 1_000_003n - 333_300n), 3_332); // 3332.99
  assert.is(drawdownBps(1_000_003n, 1_000_003n - 333_301n), 3_333); // 3333.0000
  assert.is(drawdownBps(3n, 2n), 3_333); // 3333.33
  assert.is(drawdownBps(3n, 1n), 6_666); // 6666.67: rounding to nearest would say 6667
  assert.is(drawdownBps(10_000n, 10_000n), 0);
  assert.is(drawdownBps(10_000n, 12_000n), 0);
  assert.is(drawdownBps(0n, 0n), 0);
  assert.is(drawdownBps(10n, 0n), 10_000);
});

test("externalTotal rounds each transfer up (against the vault), in and out", () => {
  assert.is(externalTotal([]), 0n);
  assert.is(externalTotal(["100", "-25.5"]), 74_500_000n);
  assert.is(externalTotal(["0.000001"]), 1n);
  assert.is(externalTotal(["0.0000001"]), 1n); // a deposit's dust counts in full
  assert.is(externalTotal(["0.0000011"]), 2n);
  assert.is(externalTotal(["-0.0000019"]), -1n); // a withdrawal's dust does not count
  assert.is(externalTotal(["-0.000002"]), -2n);
});

test("netBalance floors the account value and never goes below 0", () => {
  assert.is(netBalance("100.0000009", 0n), 100n * USDC);
  assert.is(netBalance("100.000001", 0n), 100n * USDC + 1n);
  assert.is(netBalance("100", 40n * USDC), 60n * USDC);
  assert.is(netBalance("100", -5n * USDC), 105n * USDC);
  assert.is(netBalance("100", 100n * USDC - 1n), 1n);
  assert.is(netBalance("100", 100n * USDC), 0n);
  assert.is(netBalance("100", 100n * USDC + 1n), 0n);
  assert.is(netBalance("-3", 0n), 0n);
});

const LIMITS = { maxBps: 2_000, dailyBps: 500 };
const D = 20_000; // a UTC day number

function stateOf(over: Partial<RiskState> = {}): RiskState {
  return { peak: 10_000n * USDC, dayStart: 10_000n * USDC, day: D, ...over };
}

test("assess: the last second of a UTC day keeps its reference, the first second of the next resets it", () => {
  const state = stateOf({ dayStart: 10_000n * USDC });
  const current = 9_400n * USDC; // 6% below the day's start
  const late = assess(state, current, (D + 1) * DAY - 1, LIMITS);
  assert.equal([late.dayStart, late.dailyDrawdownBps, late.breach], [10_000n * USDC, 600, true]);
  const next = assess(state, current, (D + 1) * DAY, LIMITS);
  assert.equal([next.dayStart, next.dailyDrawdownBps, next.breach], [current, 0, false]);
  assert.is(next.drawdownBps, 600, "the max drawdown still trails the peak");
  const later = assess(state, current, (D + 5) * DAY + 7, LIMITS);
  assert.is(later.dayStart, current);
});

test("assess: a clock behind the stored day does not reset the reference", () => {
  const r = assess(stateOf(), 9_400n * USDC, D * DAY - 1, LIMITS);
  assert.equal([r.dayStart, r.breach], [10_000n * USDC, true]);
});

test("assess: the peak moves up only, and the max drawdown trails it to the exact limit", () => {
  const up = assess(stateOf(), 12_000n * USDC, D * DAY + 5, { maxBps: 2_000, dailyBps: 10_000 });
  assert.equal([up.peak, up.drawdownBps, up.breach], [12_000n * USDC, 0, false]);
  const high = stateOf({ peak: 12_000n * USDC });
  const inside = assess(high, 9_600n * USDC + 1n, D * DAY + 5, { maxBps: 2_000, dailyBps: 10_000 });
  assert.equal([inside.peak, inside.drawdownBps, inside.breach], [12_000n * USDC, 1_999, false]);
  const at = assess(high, 9_600n * USDC, D * DAY + 5, { maxBps: 2_000, dailyBps: 10_000 });
  assert.equal([at.peak, at.drawdownBps, at.breach], [12_000n * USDC, 2_000, true]);
});

test("assess: either limit alone is a breach", () => {
  const dailyOnly = assess(stateOf(), 9_500n * USDC, D * DAY + 5, { maxBps: 10_000, dailyBps: 500 });
  assert.equal([dailyOnly.dailyDrawdownBps, dailyOnly.breach], [500, true]);
  const maxOnly = assess(stateOf(), 9_500n * USDC, D * DAY + 5, { maxBps: 500, dailyBps: 10_000 });
  assert.equal([maxOnly.drawdownBps, maxOnly.breach], [500, true]);
  const neither = assess(stateOf(), 9_500n * USDC + 1n, D * DAY + 5, { maxBps: 500, dailyBps: 500 });
  assert.is(neither.breach, false);
});

test("assess: with no reading yet, the reading is the day's reference on the creation day too", () => {
  // The vault row before its first reading: day start = initial = 10,000.
  const fresh = stateOf({ day: null });
  const first = assess(fresh, 12_000n * USDC, D * DAY + 60, LIMITS);
  assert.equal([first.dayStart, first.peak, first.dailyDrawdownBps, first.breach], [12_000n * USDC, 12_000n * USDC, 0, false]);
  // The example, measured as the contract does from the first reading: 11,088 is 7.6% down.
  const after: RiskState = { peak: first.peak, dayStart: first.dayStart, day: D };
  const loss = assess(after, 11_088n * USDC, D * DAY + 120, LIMITS);
  assert.equal([loss.dailyDrawdownBps, loss.breach], [760, true]);
});

test("assess: a first reading below initialBalance keeps the peak at initialBalance", () => {
  const r = assess(stateOf({ day: null }), 9_000n * USDC, D * DAY + 60, { maxBps: 1_000, dailyBps: 500 });
  assert.equal([r.dayStart, r.peak, r.dailyDrawdownBps, r.drawdownBps, r.breach], [9_000n * USDC, 10_000n * USDC, 0, 1_000, true]);
  const inside = assess(stateOf({ day: null }), 9_000n * USDC + 1n, D * DAY + 60, { maxBps: 1_000, dailyBps: 500 });
  assert.is(inside.breach, false);
});

test.run();
