// The daemon's pre-trade check (daemon/vaults/vault-math.ts assess) must reach the contract's verdict:
// the same readings, at the same block times, through both, from the first reading on, across UTC day
// boundaries (last and first second), at and around the limits.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { updateBalances } from "../../daemon/chain/contracts.js";
import { assess } from "../../daemon/vaults/vault-math.js";
import type { RiskState } from "../../daemon/vaults/vault-math.js";
import { DAY, USDC, freshChainPerTest, newVault, now, setNextTimestamp } from "./fixture.js";
import type { Chain } from "./fixture.js";

let chain: Chain;
freshChainPerTest(test, (c) => (chain = c));

/** A small deterministic generator (mulberry32), so a failure replays. */
function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

interface Tracked {
  vault: string;
  limits: { maxBps: number; dailyBps: number };
  state: RiskState;
  paused: boolean;
}

/** The next block time: mostly minutes later, sometimes the last or first second of a UTC day. */
function nextTime(t: number, r: () => number): number {
  const x = r();
  const nextDay = (Math.floor(t / DAY) + 1) * DAY;
  if (x < 0.15 && nextDay - 1 > t) return nextDay - 1;
  if (x < 0.3) return nextDay;
  if (x < 0.35) return nextDay + 2 * DAY + 17;
  return t + 1 + Math.floor(r() * 3_600);
}

test("assess agrees with TradingVault on every reading of a random walk", async () => {
  const r = rng(20_261_123);
  const limits = [
    { maxBps: 800, dailyBps: 300 }, { maxBps: 1_500, dailyBps: 500 }, { maxBps: 10_000, dailyBps: 1 }, { maxBps: 333, dailyBps: 10_000 },
    { maxBps: 2_000, dailyBps: 250 }, { maxBps: 2_500, dailyBps: 700 }, { maxBps: 3_000, dailyBps: 1_000 }, { maxBps: 5_000, dailyBps: 150 },
  ];
  const vaults: Tracked[] = [];
  for (const l of limits) {
    const { vault } = await newVault(chain, { initialBalance: 10_000n * USDC, maxDrawdownBps: l.maxBps, dailyDrawdownBps: l.dailyBps });
    // The row as the daemon keeps it before a reading: peak = day start = initial, no day yet.
    vaults.push({ vault, limits: l, state: { peak: 10_000n * USDC, dayStart: 10_000n * USDC, day: null }, paused: false });
  }
  const balances = vaults.map(() => 10_000n * USDC + BigInt(Math.floor((r() - 0.5) * 4_000)) * USDC);
  let t = (Math.floor((await now(chain)) / DAY) + 1) * DAY - 1; // the first readings: the creation day's last second
  let exact = 0;
  let resets = 0;
  for (let step = 0; step < 40; step++) {
    const predicted = vaults.map((v, i) => assess(v.state, balances[i], t, v.limits));
    await setNextTimestamp(chain, t);
    const res = await updateBalances(chain.operator, {
      factory: chain.factory, readings: vaults.map((v, i) => ({ vault: v.vault, balance: balances[i], observedAt: t })),
    });
    for (const [i, v] of vaults.entries()) {
      const a = res.applied[i];
      const p = predicted[i];
      const where = `step ${step}, vault ${i}, t ${t}`;
      assert.equal([p.peak, p.dayStart, p.drawdownBps, p.dailyDrawdownBps], [a.peakBalance, a.dayStartBalance, a.drawdownBps, a.dailyDrawdownBps], where);
      // Paused is emitted on the first breach only; while paused, unpause's NotRecovered is the verdict.
      const pausedNow = res.paused.some((x) => x.vault === v.vault);
      if (!v.paused) assert.is(pausedNow, p.breach, where);
      if (!v.paused && p.breach && p.dailyDrawdownBps === v.limits.dailyBps && balances[i] * 10_000n === a.dayStartBalance * BigInt(10_000 - v.limits.dailyBps)) exact++;
      if (v.state.day !== Math.floor(t / DAY)) resets++;
      v.paused ||= pausedNow;
      v.state = { peak: a.peakBalance, dayStart: a.dayStartBalance, day: Math.floor(t / DAY) };
      // Mostly small moves of whole USDC; now and then one that lands exactly on the daily limit (exact
      // for whole-USDC day starts) or one base unit short of it.
      const onLimit = a.dayStartBalance - (a.dayStartBalance * BigInt(v.limits.dailyBps)) / 10_000n;
      const x = r();
      balances[i] = x < 0.15 ? onLimit : x < 0.3 ? onLimit + 1n : balances[i] + BigInt(Math.floor((r() - 0.55) * 400)) * USDC;
      if (balances[i] < 0n) balances[i] = 0n;
    }
    t = nextTime(t, r);
  }
  assert.ok(exact > 0 && resets > vaults.length, `the walk must pause exactly at a limit and cross days (${exact}, ${resets})`);
});

test.run();
