// TradingVault risk limits: drawdown arithmetic at its edges, the UTC day reset, the trailing peak,
// auto-pause, unpause rules, ordering of readings, and batches that mix closed and live vaults.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { closeVault, contractAt, readVaultState, unpauseVault, updateBalances } from "../../daemon/chain/contracts.js";
import { toAppError } from "../../daemon/chain/chain-errors.js";
import type { BalanceReading } from "../../daemon/chain/contracts.js";
import type { VaultTerms } from "../../daemon/chain/terms.js";
import { DAY, USDC, freshChainPerTest, newVault, now, rejects, setNextTimestamp } from "./fixture.js";
import type { Chain } from "./fixture.js";

let chain: Chain;
freshChainPerTest(test, (c) => (chain = c));

/** One oracle transaction; observedAt defaults to the latest block time (always newer than before). */
async function write(readings: { vault: string; balance: bigint; observedAt?: number }[]) {
  const t = await now(chain);
  const full: BalanceReading[] = readings.map((r) => ({ ...r, observedAt: r.observedAt ?? t }));
  return updateBalances(chain.operator, { factory: chain.factory, readings: full });
}

async function vaults(n: number, over: Partial<VaultTerms>): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push((await newVault(chain, over)).vault);
  return out;
}

/** Vaults that already took their first reading, at the initial balance, early in a fresh UTC day:
 * the first reading sets the day's reference, and no day boundary falls inside the test. */
async function started(n: number, over: Partial<VaultTerms>): Promise<string[]> {
  const list = await vaults(n, over);
  await setNextTimestamp(chain, (Math.floor((await now(chain)) / DAY) + 1) * DAY + 60);
  await write(list.map((vault) => ({ vault, balance: over.initialBalance ?? 10_000n * USDC })));
  return list;
}

test("max drawdown is breached at the exact limit, not one unit before", async () => {
  const [before, at, past] = await vaults(3, { maxDrawdownBps: 2_000, dailyDrawdownBps: 10_000 });
  const limit = 8_000n * USDC; // 20% below 10,000 USDC
  const r = await write([
    { vault: before, balance: limit + 1n },
    { vault: at, balance: limit },
    { vault: past, balance: limit - 1n },
  ]);
  assert.equal(r.applied.map((a) => a.drawdownBps), [1_999, 2_000, 2_000]);
  assert.equal(r.paused, [{ vault: at, reason: 1 }, { vault: past, reason: 1 }]);
  assert.is((await readVaultState(chain.provider, { vault: before })).paused, false);
  assert.is((await readVaultState(chain.provider, { vault: at })).paused, true);
});

test("the breach test is exact integer arithmetic, not a rounded percentage", async () => {
  // 3333 bps of 1,000,003 is 333,300.9999: a drop of 333,300 is inside, 333,301 is a breach.
  const [inside, breach] = await vaults(2, { initialBalance: 1_000_003n, maxDrawdownBps: 3_333, dailyDrawdownBps: 10_000 });
  const r = await write([
    { vault: inside, balance: 1_000_003n - 333_300n },
    { vault: breach, balance: 1_000_003n - 333_301n },
  ]);
  assert.equal(r.applied.map((a) => a.drawdownBps), [3_332, 3_333]);
  assert.equal(r.paused, [{ vault: breach, reason: 1 }]);
});

test("daily drawdown is breached at the exact limit", async () => {
  const [before, at, past] = await started(3, { maxDrawdownBps: 10_000, dailyDrawdownBps: 500 });
  const limit = 9_500n * USDC;
  const r = await write([
    { vault: before, balance: limit + 1n },
    { vault: at, balance: limit },
    { vault: past, balance: limit - 1n },
  ]);
  assert.equal(r.applied.map((a) => a.dailyDrawdownBps), [499, 500, 500]);
  assert.equal(r.paused, [{ vault: at, reason: 2 }, { vault: past, reason: 2 }]);
});

test("both limits at once pause with both reason bits", async () => {
  const [v] = await started(1, { maxDrawdownBps: 1_000, dailyDrawdownBps: 1_000 });
  const r = await write([{ vault: v, balance: 9_000n * USDC }]);
  assert.equal(r.paused, [{ vault: v, reason: 3 }]);
});

test("a new UTC day resets the daily measure to its first reading", async () => {
  const [reset, sameDay] = await vaults(2, { maxDrawdownBps: 2_000, dailyDrawdownBps: 500 });
  const d = Math.floor((await now(chain)) / DAY) + 2;
  await setNextTimestamp(chain, d * DAY + 100);
  await write([{ vault: reset, balance: 10_000n * USDC }, { vault: sameDay, balance: 10_000n * USDC }]);
  await setNextTimestamp(chain, d * DAY + DAY - 10);
  let r = await write([{ vault: reset, balance: 9_600n * USDC }, { vault: sameDay, balance: 9_600n * USDC }]);
  assert.equal(r.paused, []);
  // Same day: 9,216 is 7.84% below the day's start and breaches the 5% limit.
  await setNextTimestamp(chain, d * DAY + DAY - 5);
  r = await write([{ vault: sameDay, balance: 9_216n * USDC }]);
  assert.equal(r.paused, [{ vault: sameDay, reason: 2 }]);
  // Next day: the same balance is the new day's start, so the daily drawdown is zero.
  await setNextTimestamp(chain, (d + 1) * DAY + 10);
  r = await write([{ vault: reset, balance: 9_216n * USDC }]);
  assert.equal(r.paused, []);
  assert.is(r.applied[0].dayStartBalance, 9_216n * USDC);
  assert.is(r.applied[0].dailyDrawdownBps, 0);
  let st = await readVaultState(chain.provider, { vault: reset });
  assert.is(st.day, d + 1);
  assert.is(st.drawdownBps, 784);
  // Later readings of the day are measured from the day's start, not from an intraday high.
  r = await write([{ vault: reset, balance: 9_500n * USDC }]);
  r = await write([{ vault: reset, balance: 9_025n * USDC }]); // 5% below 9,500 but 2.07% below 9,216
  assert.equal(r.paused, []);
  assert.is(r.applied[0].dayStartBalance, 9_216n * USDC);
  r = await write([{ vault: reset, balance: 8_755_200_000n }]); // exactly 5% below 9,216
  assert.equal(r.paused, [{ vault: reset, reason: 2 }]);
  st = await readVaultState(chain.provider, { vault: reset });
  assert.is(st.paused, true);
});

test("the peak moves up and the max drawdown trails it", async () => {
  const [v] = await vaults(1, { maxDrawdownBps: 2_000, dailyDrawdownBps: 10_000 });
  let r = await write([{ vault: v, balance: 12_000n * USDC }]);
  assert.is(r.applied[0].peakBalance, 12_000n * USDC);
  assert.is(r.applied[0].drawdownBps, 0);
  r = await write([{ vault: v, balance: 9_601n * USDC }]); // 19.99% below the peak, 4% below the start
  assert.equal(r.paused, []);
  assert.is(r.applied[0].drawdownBps, 1_999);
  assert.is(r.applied[0].peakBalance, 12_000n * USDC);
  r = await write([{ vault: v, balance: 9_600n * USDC }]);
  assert.equal(r.paused, [{ vault: v, reason: 1 }]);
  // A paused vault still takes readings (so recovery is seen), without a second Paused event.
  r = await write([{ vault: v, balance: 9_000n * USDC }]);
  assert.is(r.applied.length, 1);
  assert.equal(r.paused, []);
  r = await write([{ vault: v, balance: 12_500n * USDC }]);
  const st = await readVaultState(chain.provider, { vault: v });
  assert.is(st.peakBalance, 12_500n * USDC);
  assert.is(st.paused, true, "recovery alone does not unpause");
});

test("unpause: only trader or operator, only when paused and recovered", async () => {
  const [v] = await started(1, { maxDrawdownBps: 2_000, dailyDrawdownBps: 500 });
  await rejects(unpauseVault(chain.investor, { vault: v }), "NotAuthorized", "FORBIDDEN");
  await rejects(unpauseVault(chain.stranger, { vault: v }), "NotAuthorized", "FORBIDDEN");
  await rejects(unpauseVault(chain.trader, { vault: v }), "NotPaused", "CONFLICT");

  await write([{ vault: v, balance: 8_000n * USDC }]);
  let err = await rejects(unpauseVault(chain.trader, { vault: v }), "NotRecovered", "NOT_RECOVERED");
  assert.equal(err.args, ["3"]);
  await write([{ vault: v, balance: 8_001n * USDC }]); // max recovered, daily still 19.99% down today
  err = await rejects(unpauseVault(chain.trader, { vault: v }), "NotRecovered");
  assert.equal(err.args, ["2"]);

  const d = Math.floor((await now(chain)) / DAY) + 1;
  await setNextTimestamp(chain, d * DAY + 5);
  await write([{ vault: v, balance: 8_001n * USDC }]); // a new day: the daily measure starts over
  const relayed = await unpauseVault(chain.operator, { vault: v });
  assert.ok(relayed.txHash);
  assert.is((await readVaultState(chain.provider, { vault: v })).paused, false);

  await write([{ vault: v, balance: 7_999n * USDC }]);
  await write([{ vault: v, balance: 8_000n * USDC }]); // exactly at the limit is still a breach
  err = await rejects(unpauseVault(chain.trader, { vault: v }), "NotRecovered");
  assert.equal(err.args, ["1"]);
  await write([{ vault: v, balance: 8_000n * USDC + 1n }]);
  await unpauseVault(chain.trader, { vault: v });
  assert.is((await readVaultState(chain.provider, { vault: v })).paused, false);

  await write([{ vault: v, balance: 7_000n * USDC }]);
  await closeVault(chain.investor, { vault: v });
  await rejects(unpauseVault(chain.trader, { vault: v }), "VaultClosed", "VAULT_CLOSED");
});

test("an older or equal reading after a newer one is ignored", async () => {
  const [v] = await vaults(1, {});
  const t = await now(chain);
  let r = await write([{ vault: v, balance: 9_900n * USDC, observedAt: t }]);
  assert.is(r.applied.length, 1);
  r = await write([{ vault: v, balance: 5_000n * USDC, observedAt: t - 30 }]);
  assert.is(r.applied.length, 0);
  assert.equal(r.skipped.map((s) => s.balance), [5_000n * USDC]);
  r = await write([{ vault: v, balance: 5_000n * USDC, observedAt: t }]);
  assert.is(r.applied.length, 0);
  let st = await readVaultState(chain.provider, { vault: v });
  assert.is(st.balance, 9_900n * USDC);
  assert.is(st.observedAt, t);
  assert.is(st.paused, false);
  // Within one batch too: the second, older reading of the same vault loses.
  r = await write([
    { vault: v, balance: 9_800n * USDC, observedAt: t + 2 },
    { vault: v, balance: 9_700n * USDC, observedAt: t + 1 },
  ]);
  assert.equal(r.applied.map((a) => a.balance), [9_800n * USDC]);
  st = await readVaultState(chain.provider, { vault: v });
  assert.is(st.balance, 9_800n * USDC);
  assert.ok(st.updatedAt >= st.observedAt);
});

test("readings from the future (beyond 5 minutes) and out-of-range balances are ignored", async () => {
  const [v] = await vaults(1, {});
  const t = (await now(chain)) + 100;
  await setNextTimestamp(chain, t);
  let r = await write([{ vault: v, balance: 1n, observedAt: t + 301 }]);
  assert.is(r.applied.length, 0, "an observedAt in ms or a skewed clock must not poison the vault");
  await setNextTimestamp(chain, t + 1);
  r = await write([{ vault: v, balance: 2n ** 80n, observedAt: t }]);
  assert.is(r.applied.length, 0);
  await setNextTimestamp(chain, t + 2);
  r = await write([{ vault: v, balance: 9_999n * USDC, observedAt: t + 302 }]);
  assert.is(r.applied.length, 1, "up to 5 minutes ahead of the block is accepted");
});

test("a batch writes many vaults and skips a closed one without reverting", async () => {
  const list = await vaults(5, { maxDrawdownBps: 2_000, dailyDrawdownBps: 10_000 });
  await write([{ vault: list[1], balance: 11_000n * USDC }]);
  const closed = await closeVault(chain.trader, { vault: list[1] });
  const r = await write(list.map((vault, i) => ({ vault, balance: (i === 3 ? 7_000n : 10_100n) * USDC })));
  assert.equal(r.applied.map((a) => a.vault), [list[0], list[2], list[3], list[4]]);
  assert.equal(r.skipped.map((s) => s.vault), [list[1]]);
  assert.equal(r.paused, [{ vault: list[3], reason: 1 }]);
  const st = await readVaultState(chain.provider, { vault: list[1] });
  assert.is(st.balance, 11_000n * USDC);
  assert.is(st.finalBalance, closed.finalBalance);
  assert.is((await readVaultState(chain.provider, { vault: list[4] })).balance, 10_100n * USDC);
});

test("only the factory's operator writes balances, and only through the factory", async () => {
  const [v] = await vaults(1, {});
  await rejects(
    updateBalances(chain.stranger, { factory: chain.factory, readings: [{ vault: v, balance: 1n, observedAt: await now(chain) }] }),
    "NotAuthorized",
    "FORBIDDEN",
  );
  const direct = contractAt("TradingVault", v, chain.operator).getFunction("updateBalance");
  await rejects(direct(1n, await now(chain)).catch((e) => Promise.reject(toAppError(e))), "NotAuthorized");
  const factory = contractAt("VaultFactory", chain.factory, chain.operator).getFunction("updateBalances");
  await rejects(factory([v], [1n, 2n], [1]).catch((e) => Promise.reject(toAppError(e))), "LengthMismatch", "INTERNAL");
});

test.run();
