// TradingVault's first day: the first oracle reading, not initialBalance, is the day's reference for
// the daily drawdown; the peak still starts at initialBalance (a first reading only raises it).
import { test } from "uvu";
import * as assert from "uvu/assert";
import { readVaultState, updateBalances } from "../../daemon/chain/contracts.js";
import type { VaultTerms } from "../../daemon/chain/terms.js";
import { DAY, USDC, freshChainPerTest, newVault, now, setNextTimestamp } from "./fixture.js";
import type { Chain } from "./fixture.js";

let chain: Chain;
freshChainPerTest(test, (c) => (chain = c));

/** A vault created early in a fresh UTC day, so its first readings fall on its creation day (the day
 * the old rule measured from initialBalance). Returns the vault and that day. */
async function createdToday(over: Partial<VaultTerms>): Promise<{ vault: string; day: number }> {
  const day = Math.floor((await now(chain)) / DAY) + 1;
  await setNextTimestamp(chain, day * DAY + 60);
  const { vault } = await newVault(chain, over);
  return { vault, day };
}

async function read(vault: string, balance: bigint, at: number) {
  await setNextTimestamp(chain, at);
  return updateBalances(chain.operator, { factory: chain.factory, readings: [{ vault, balance, observedAt: at }] });
}

test("an account that starts at 12,000 against 10,000 pauses after losing 7.6% on day one (5% daily limit)", async () => {
  const { vault, day } = await createdToday({ initialBalance: 10_000n * USDC, maxDrawdownBps: 2_000, dailyDrawdownBps: 500 });
  let r = await read(vault, 12_000n * USDC, day * DAY + 120);
  assert.equal(r.paused, []);
  assert.is(r.applied[0].dayStartBalance, 12_000n * USDC, "the first reading is the day's reference");
  assert.is((await readVaultState(chain.provider, { vault })).day, day);
  // 11,401 is 4.99% below the first reading: inside the limit; the reference does not move again.
  r = await read(vault, 11_401n * USDC, day * DAY + 180);
  assert.equal(r.paused, []);
  assert.is(r.applied[0].dayStartBalance, 12_000n * USDC);
  // 11,088 is 7.6% below 12,000 (but above 10,000): the daily limit pauses, the max does not.
  r = await read(vault, 11_088n * USDC, day * DAY + 240);
  assert.equal(r.paused, [{ vault, reason: 2 }]);
  assert.equal([r.applied[0].dailyDrawdownBps, r.applied[0].drawdownBps], [760, 760]);
});

test("the first reading sets the reference even on the creation day, exactly at the limit", async () => {
  const { vault, day } = await createdToday({ initialBalance: 10_000n * USDC, maxDrawdownBps: 10_000, dailyDrawdownBps: 500 });
  await read(vault, 20_000n * USDC, day * DAY + 120);
  const r = await read(vault, 19_000n * USDC, day * DAY + 180); // exactly 5% below the first reading
  assert.equal(r.paused, [{ vault, reason: 2 }]);
});

test("a first reading below initialBalance is the day's reference but counts against the max drawdown", async () => {
  const { vault, day } = await createdToday({ initialBalance: 10_000n * USDC, maxDrawdownBps: 1_000, dailyDrawdownBps: 500 });
  const r = await read(vault, 9_000n * USDC, day * DAY + 120);
  assert.is(r.applied[0].dayStartBalance, 9_000n * USDC);
  assert.is(r.applied[0].peakBalance, 10_000n * USDC, "the peak starts at initialBalance, not at the first reading");
  assert.equal([r.applied[0].dailyDrawdownBps, r.applied[0].drawdownBps], [0, 1_000]);
  assert.equal(r.paused, [{ vault, reason: 1 }]);
});

test("a first reading on a later day starts that day as before", async () => {
  const { vault, day } = await createdToday({ initialBalance: 10_000n * USDC, maxDrawdownBps: 2_000, dailyDrawdownBps: 500 });
  await read(vault, 12_000n * USDC, (day + 3) * DAY + 10);
  const st = await readVaultState(chain.provider, { vault });
  assert.equal([st.dayStartBalance, st.day, st.peakBalance], [12_000n * USDC, day + 3, 12_000n * USDC]);
});

test.run();
