// Gas report: vault creation, one oracle update, and the per-vault cost in a batch of 100 (routine,
// first reading, worst case). Prints the figures (docs/contracts.md quotes them) and asserts the
// properties the design relies on: creation fits HyperEVM's 2M-gas small blocks, batching makes a
// vault's update cost under half of a single-update transaction, and the planning constants the
// oracle uses are upper bounds.
import { test } from "uvu";
import * as assert from "uvu/assert";
import {
  UPDATE_GAS_BASE, UPDATE_GAS_PER_VAULT, closeVault, fundVault, updateBalances, withdrawFromVault,
} from "../../daemon/chain/contracts.js";
import type { BalanceReading } from "../../daemon/chain/contracts.js";
import { DAY, USDC, newVault, now, setNextTimestamp, setupChain } from "./fixture.js";

const SMALL_BLOCK = 2_000_000n;
const BATCH = 100;

test("gas per creation, per single update and per vault in a batch of 100", async () => {
  const chain = await setupChain();
  const created: bigint[] = [];
  const vaults: string[] = [];
  for (let i = 0; i <= BATCH; i++) {
    const r = await newVault(chain, { maxDrawdownBps: 2_000, dailyDrawdownBps: 500 });
    created.push(r.gasUsed);
    vaults.push(r.vault);
  }
  const [lone, ...batch] = vaults;
  const creation = created.reduce((a, b) => (a > b ? a : b));
  const write = async (readings: BalanceReading[]) => updateBalances(chain.operator, { factory: chain.factory, readings });

  // A vault's first reading also writes its day start (the first day's reference); the routine
  // reading is every later one of the same day.
  let t = await now(chain);
  await setNextTimestamp(chain, (t = (Math.floor(t / DAY) + 1) * DAY + 10));
  await write([{ vault: lone, balance: 9_995n * USDC, observedAt: t }]);
  const first = await write(batch.map((vault, i) => ({ vault, balance: 9_950n * USDC + BigInt(i), observedAt: t })));
  assert.is(first.applied.length, BATCH);
  t = await now(chain);
  const single = await write([{ vault: lone, balance: 9_990n * USDC, observedAt: t }]);
  t = await now(chain);
  const typical = await write(batch.map((vault, i) => ({ vault, balance: 9_900n * USDC + BigInt(i), observedAt: t })));
  assert.is(typical.applied.length, BATCH);
  assert.equal(typical.paused, []);
  // Worst case per vault: the first reading of a new UTC day that also breaches a limit.
  t = (Math.floor(t / DAY) + 1) * DAY + 10;
  await setNextTimestamp(chain, t);
  const worst = await write(batch.map((vault) => ({ vault, balance: 7_000n * USDC, observedAt: t })));
  assert.is(worst.paused.length, BATCH);

  const perVault = typical.gasUsed / BigInt(BATCH);
  const firstPerVault = first.gasUsed / BigInt(BATCH);
  const worstPerVault = worst.gasUsed / BigInt(BATCH);
  const overhead = single.gasUsed - perVault; // what a batch costs besides its vaults
  const fitSmallBlock = (SMALL_BLOCK - UPDATE_GAS_BASE) / UPDATE_GAS_PER_VAULT;

  await fundVault(chain.investor, { vault: lone, amount: 100n * USDC });
  const close = await closeVault(chain.investor, { vault: lone });
  const withdraw = await withdrawFromVault(chain.investor, { vault: lone, party: chain.investor.address });

  console.log(
    [
      "gas report",
      `  deploy implementation + factory     ${chain.deployGas}`,
      `  createVault (max of ${BATCH + 1})           ${creation}`,
      `  updateBalances, 1 vault             ${single.gasUsed}`,
      `  updateBalances, ${BATCH} vaults          ${typical.gasUsed} (${perVault} per vault)`,
      `  same, each vault's first reading    ${first.gasUsed} (${firstPerVault} per vault)`,
      `  same, new day + pause for each      ${worst.gasUsed} (${worstPerVault} per vault)`,
      `  batch overhead                      ${overhead}`,
      `  readings per 2M-gas block (planned) ${fitSmallBlock}`,
      `  close                               ${close.gasUsed}`,
      `  withdraw                            ${withdraw.gasUsed}`,
    ].join("\n"),
  );
  assert.ok(creation < SMALL_BLOCK, `creation ${creation} must fit a 2M-gas block`);
  assert.ok(perVault * 2n < single.gasUsed, `batched ${perVault} per vault vs single ${single.gasUsed}`);
  assert.ok(worstPerVault <= UPDATE_GAS_PER_VAULT, `worst case ${worstPerVault} > UPDATE_GAS_PER_VAULT`);
  assert.ok(firstPerVault <= UPDATE_GAS_PER_VAULT, `first reading ${firstPerVault} > UPDATE_GAS_PER_VAULT`);
  assert.ok(overhead <= UPDATE_GAS_BASE, `overhead ${overhead} > UPDATE_GAS_BASE`);
});

test.run();
