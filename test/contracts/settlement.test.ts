// TradingVault close and settlement: who may close when, the profit split and its rounding, funding
// (plain and by permit), pull withdrawals in every order, and the party/operator rules.
import { test } from "uvu";
import * as assert from "uvu/assert";
import {
  closeVault, fundVault, fundVaultWithPermit, mintSettlementToken, readTokenBalance, readVaultState,
  updateBalances, vaultPermitTypedData, withdrawFromVault,
} from "../../daemon/chain/contracts.js";
import { ethersTypedDataArgs } from "../../daemon/chain/terms.js";
import type { VaultTerms } from "../../daemon/chain/terms.js";
import { USDC, freshChainPerTest, newVault, now, rejects, setNextTimestamp } from "./fixture.js";
import type { Chain } from "./fixture.js";

let chain: Chain;
freshChainPerTest(test, (c) => (chain = c));

const balanceOf = (account: string) => readTokenBalance(chain.provider, { token: chain.token, account });

/** A vault whose last reading is `final`, closed by the investor. */
async function closedVault(final: bigint, over: Partial<VaultTerms> = {}, funding = 0n): Promise<string> {
  const { vault } = await newVault(chain, { maxDrawdownBps: 10_000, dailyDrawdownBps: 10_000, ...over });
  if (funding > 0n) await fundVault(chain.investor, { vault, amount: funding });
  await updateBalances(chain.operator, { factory: chain.factory, readings: [{ vault, balance: final, observedAt: await now(chain) }] });
  await closeVault(chain.investor, { vault });
  return vault;
}

test("before the deadline investor, trader and operator may close; a stranger may not", async () => {
  for (const who of [chain.investor, chain.trader, chain.operator]) {
    const { vault } = await newVault(chain);
    const r = await closeVault(who, { vault });
    assert.is(r.closedBy, who.address);
    assert.is((await readVaultState(chain.provider, { vault })).closed, true);
  }
  const { vault } = await newVault(chain);
  await rejects(closeVault(chain.stranger, { vault }), "NotAuthorized", "FORBIDDEN");
});

test("anyone may close after the deadline, not at it; a closed vault stays closed", async () => {
  const { vault, terms } = await newVault(chain);
  await setNextTimestamp(chain, terms.dealDeadline);
  await rejects(closeVault(chain.stranger, { vault }), "NotAuthorized");
  await setNextTimestamp(chain, terms.dealDeadline + 1);
  const r = await closeVault(chain.stranger, { vault });
  assert.is(r.closedBy, chain.stranger.address);
  await rejects(closeVault(chain.investor, { vault }), "VaultClosed", "VAULT_CLOSED");
  const u = await updateBalances(chain.operator, {
    factory: chain.factory, readings: [{ vault, balance: 1n, observedAt: await now(chain) }],
  });
  assert.is(u.skipped.length, 1, "after close nothing changes the balance");
  assert.is((await readVaultState(chain.provider, { vault })).balance, 10_000n * USDC);
});

test("profit split: trader share rounds down, investor gets the rest", async () => {
  const { vault } = await newVault(chain, { traderShareBps: 3_333 });
  await updateBalances(chain.operator, {
    factory: chain.factory, readings: [{ vault, balance: 10_000n * USDC + 1_234_567n, observedAt: await now(chain) }],
  });
  const r = await closeVault(chain.trader, { vault });
  assert.is(r.finalBalance, 10_000n * USDC + 1_234_567n);
  assert.is(r.profit, 1_234_567n);
  assert.is(r.traderShare, 411_481n); // 1,234,567 * 0.3333 = 411,481.18
  assert.is(r.investorShare, 1_234_567n - 411_481n);
  const st = await readVaultState(chain.provider, { vault });
  assert.equal([st.finalBalance, st.profit, st.traderShare, st.investorShare], [r.finalBalance, r.profit, r.traderShare, r.investorShare]);
  assert.ok(st.closedAt > 0);
});

test("loss and zero profit: the trader gets nothing", async () => {
  const loss = await closedVault(9_000n * USDC);
  let st = await readVaultState(chain.provider, { vault: loss });
  assert.equal([st.profit, st.traderShare, st.investorShare], [-1_000n * USDC, 0n, -1_000n * USDC]);
  const flat = await closedVault(10_000n * USDC);
  st = await readVaultState(chain.provider, { vault: flat });
  assert.equal([st.profit, st.traderShare, st.investorShare], [0n, 0n, 0n]);
  const all = await closedVault(20_000n * USDC, { traderShareBps: 10_000 });
  st = await readVaultState(chain.provider, { vault: all });
  assert.equal([st.traderShare, st.investorShare], [10_000n * USDC, 0n]);
});

test("withdraw needs a closed vault, a real party, and the party or the operator as sender", async () => {
  const { vault } = await newVault(chain);
  await fundVault(chain.investor, { vault, amount: 100n * USDC });
  await rejects(withdrawFromVault(chain.investor, { vault, party: chain.investor.address }), "VaultNotClosed", "VAULT_NOT_CLOSED");
  await closeVault(chain.investor, { vault });
  await rejects(withdrawFromVault(chain.stranger, { vault, party: chain.stranger.address }), "InvalidParty", "INVALID_INPUT");
  await rejects(withdrawFromVault(chain.trader, { vault, party: chain.investor.address }), "NotAuthorized", "FORBIDDEN");
  await rejects(withdrawFromVault(chain.stranger, { vault, party: chain.investor.address }), "NotAuthorized");
  await rejects(withdrawFromVault(chain.trader, { vault, party: chain.trader.address }), "NothingToWithdraw", "NOTHING_TO_WITHDRAW");
  // The operator relays, but the money goes to the investor's own address.
  const before = await balanceOf(chain.investor.address);
  const r = await withdrawFromVault(chain.operator, { vault, party: chain.investor.address });
  assert.equal([r.amount, r.recipient], [100n * USDC, chain.investor.address]);
  assert.is(await balanceOf(chain.investor.address), before + 100n * USDC);
  assert.is(await balanceOf(chain.operator.address), 0n);
  await rejects(withdrawFromVault(chain.investor, { vault, party: chain.investor.address }), "NothingToWithdraw");
});

test("funded before close, trader first then investor, then nothing is left", async () => {
  const vault = await closedVault(10_000n * USDC + 1_234_567n, { traderShareBps: 3_333 }, 1_000n * USDC);
  const t = await withdrawFromVault(chain.trader, { vault, party: chain.trader.address });
  assert.is(t.amount, 411_481n);
  const i = await withdrawFromVault(chain.investor, { vault, party: chain.investor.address });
  assert.is(i.amount, 1_000n * USDC - 411_481n);
  await rejects(withdrawFromVault(chain.trader, { vault, party: chain.trader.address }), "NothingToWithdraw");
  await rejects(withdrawFromVault(chain.investor, { vault, party: chain.investor.address }), "NothingToWithdraw");
  const st = await readVaultState(chain.provider, { vault });
  assert.equal([st.escrow, st.traderPaid, st.investorPaid], [0n, 411_481n, 1_000n * USDC - 411_481n]);
  assert.is(await balanceOf(chain.trader.address), 411_481n);
});

test("investor first leaves the trader's share in the escrow", async () => {
  const vault = await closedVault(10_500n * USDC, { traderShareBps: 2_000 }, 300n * USDC);
  let st = await readVaultState(chain.provider, { vault });
  assert.equal([st.traderWithdrawable, st.investorWithdrawable], [100n * USDC, 200n * USDC]);
  const i = await withdrawFromVault(chain.investor, { vault, party: chain.investor.address });
  assert.is(i.amount, 200n * USDC);
  await rejects(withdrawFromVault(chain.investor, { vault, party: chain.investor.address }), "NothingToWithdraw");
  const t = await withdrawFromVault(chain.operator, { vault, party: chain.trader.address });
  assert.equal([t.amount, t.recipient], [100n * USDC, chain.trader.address]);
  st = await readVaultState(chain.provider, { vault });
  assert.is(st.escrow, 0n);
});

test("an underfunded escrow pays the trader first, never more than it holds; top-ups settle the rest", async () => {
  const vault = await closedVault(10_000n * USDC + 1_234_567n, { traderShareBps: 3_333 }, 100_000n);
  await rejects(withdrawFromVault(chain.investor, { vault, party: chain.investor.address }), "NothingToWithdraw");
  let t = await withdrawFromVault(chain.trader, { vault, party: chain.trader.address });
  assert.is(t.amount, 100_000n);
  await rejects(withdrawFromVault(chain.trader, { vault, party: chain.trader.address }), "NothingToWithdraw");
  // A top-up after close, by anyone (here a stranger who holds tokens).
  await mintSettlementToken(chain.operator, { token: chain.token, to: chain.stranger.address, amount: USDC });
  const f = await fundVault(chain.stranger, { vault, amount: USDC });
  assert.equal([f.from, f.amount], [chain.stranger.address, USDC]);
  t = await withdrawFromVault(chain.trader, { vault, party: chain.trader.address });
  assert.is(t.amount, 411_481n - 100_000n);
  const i = await withdrawFromVault(chain.investor, { vault, party: chain.investor.address });
  assert.is(i.amount, 100_000n + USDC - 411_481n);
  const st = await readVaultState(chain.provider, { vault });
  assert.equal([st.escrow, st.traderPaid + st.investorPaid], [0n, 100_000n + USDC]);
});

test("after a loss the investor takes the whole escrow", async () => {
  const vault = await closedVault(7_000n * USDC, {}, 500n * USDC);
  await rejects(withdrawFromVault(chain.trader, { vault, party: chain.trader.address }), "NothingToWithdraw");
  const i = await withdrawFromVault(chain.investor, { vault, party: chain.investor.address });
  assert.is(i.amount, 500n * USDC);
});

test("fund refuses zero and a sender without tokens", async () => {
  const { vault } = await newVault(chain);
  await rejects(fundVault(chain.investor, { vault, amount: 0n }), "InvalidAmount", "INVALID_INPUT");
  await rejects(fundVault(chain.stranger, { vault, amount: 1n }), "ERC20InsufficientBalance", "INSUFFICIENT_BALANCE");
});

test("fundWithPermit pulls from the investor on a permit the operator relays", async () => {
  const { vault } = await newVault(chain);
  const deadline = (await now(chain)) + 3_600;
  const doc = await vaultPermitTypedData(chain.provider, { vault, amount: 250n * USDC, deadline });
  assert.equal(doc.domain, { name: "Test USD Coin", version: "1", chainId: Number(chain.chainId), verifyingContract: chain.token });
  assert.equal([doc.message.owner, doc.message.spender, doc.message.value, doc.message.nonce], [chain.investor.address, vault, "250000000", "0"]);
  const signature = await chain.investor.signTypedData(...ethersTypedDataArgs(doc));
  const ethBefore = await chain.provider.getBalance(chain.investor.address);
  const tokensBefore = await balanceOf(chain.investor.address);

  await rejects(fundVaultWithPermit(chain.stranger, { vault, amount: 250n * USDC, deadline, signature }), "NotAuthorized");
  const r = await fundVaultWithPermit(chain.operator, { vault, amount: 250n * USDC, deadline, signature });
  assert.equal([r.from, r.amount], [chain.investor.address, 250n * USDC]);
  assert.is(await balanceOf(chain.investor.address), tokensBefore - 250n * USDC);
  assert.is(await chain.provider.getBalance(chain.investor.address), ethBefore, "the investor paid no gas");
  assert.is((await readVaultState(chain.provider, { vault })).escrow, 250n * USDC);
  // The same permit cannot be spent twice.
  await rejects(fundVaultWithPermit(chain.operator, { vault, amount: 250n * USDC, deadline, signature }), "ERC20InsufficientAllowance");
});

test("an expired permit or one for another amount funds nothing", async () => {
  const { vault } = await newVault(chain);
  const deadline = (await now(chain)) + 60;
  const doc = await vaultPermitTypedData(chain.provider, { vault, amount: 10n * USDC, deadline });
  const signature = await chain.investor.signTypedData(...ethersTypedDataArgs(doc));
  await rejects(fundVaultWithPermit(chain.operator, { vault, amount: 11n * USDC, deadline, signature }), "ERC20InsufficientAllowance");
  await setNextTimestamp(chain, deadline + 1);
  await rejects(fundVaultWithPermit(chain.operator, { vault, amount: 10n * USDC, deadline, signature }), "ERC20InsufficientAllowance");
  assert.is((await readVaultState(chain.provider, { vault })).escrow, 0n);
});

test.run();
