// The oracle's balance reads: net of external transfers from the vault's creation second on, and
// within budget (the 20-weight ledger is read again only when the account's cash moved, on a new
// hour, when stale, or when a fresh figure is asked for).
import { test } from "uvu";
import * as assert from "uvu/assert";
import { Wallet } from "ethers";
import type { VaultRow } from "../../daemon/db/schema-chain.js";
import { createHyperliquidAdapter } from "../../daemon/exchange/hyperliquid-adapter.js";
import type { ExchangeAdapter } from "../../daemon/exchange/types.js";
import { createBalanceReader } from "../../daemon/vaults/balance-reader.js";
import { oracleCapacity } from "../../daemon/vaults/vault-balances.js";
import { startSim } from "../sim/_support.js";

function counting(ex: ExchangeAdapter) {
  const calls = { accountState: 0, ledgerUpdates: 0 };
  const wrapped: ExchangeAdapter = {
    ...ex,
    accountState: (u, o) => (calls.accountState++, ex.accountState(u, o)),
    ledgerUpdates: (u, s, o) => (calls.ledgerUpdates++, ex.ledgerUpdates(u, s, o)),
  };
  return { wrapped, calls };
}

test("deposits after the vault started are not profit; the ledger is read only when needed", async () => {
  let now = Date.now();
  const h = await startSim({ clock: () => now });
  try {
    const account = Wallet.createRandom().address;
    await h.sim.faucet(account, "10000"); // the capital the vault starts with
    now += 5_000;
    const vault = { address: "0xV", exchange_account: account, created_at: Math.floor(now / 1000), last_observed_at: null } as unknown as VaultRow;
    const { wrapped, calls } = counting(createHyperliquidAdapter({ kind: "sim", url: h.sim.url, isTestnet: true }));
    const reader = createBalanceReader(wrapped, () => now, { ledgerMaxAgeMs: 60_000 });

    now += 2_000;
    const first = await reader.read(vault);
    assert.is(first.balance, 10_000_000_000n);
    assert.equal(calls, { accountState: 1, ledgerUpdates: 0 }, "the first reading is the capital: nothing to net yet");
    assert.is(first.source.nettingFrom, first.source.stateTime);
    await reader.read(vault);
    assert.equal(calls, { accountState: 2, ledgerUpdates: 0 }, "the cash did not move: 2 weight per read");

    now += 1; // the exchange's clock moves on between the first reading's state and the deposit
    await h.sim.faucet(account, "3000"); // an outside deposit: the cash moved, so the ledger is read at once
    assert.is((await reader.read(vault)).balance, 10_000_000_000n, "the deposit is netted out");
    assert.is(calls.ledgerUpdates, 1);
    await h.sim.faucet(account, "1"); // far below any jump threshold: netted all the same
    const small = await reader.read(vault);
    assert.is(small.balance, 10_000_000_000n, "a small deposit is netted at once");
    assert.is(small.source.external, 3_001_000_000n);
    assert.is(small.source.accountValue, "13001");
    assert.is(small.source.flat, true);
    assert.is(calls.ledgerUpdates, 2);
    await reader.read(vault);
    assert.is(calls.ledgerUpdates, 2, "nothing moved: the total holds");

    await reader.read(vault, { fresh: true });
    assert.is(calls.ledgerUpdates, 3);
    now += 61_000;
    await reader.read(vault);
    assert.is(calls.ledgerUpdates, 4, "stale after a minute here");
    const r = await reader.read({ ...vault, last_observed_at: Math.floor(now / 1000) + 5 } as VaultRow);
    assert.is(r.observedAt, Math.floor(now / 1000) + 6, "never repeats or goes back on an observed second");
  } finally {
    await h.close();
  }
});

test("capital funded in the creation second is the vault's; a deposit ms after the first reading is netted", async () => {
  // Block times are whole seconds: the vault starts at its first reading, in the exchange's ms.
  const second = Math.floor(Date.now() / 1000) + 10;
  let now = second * 1000 + 1;
  const h = await startSim({ clock: () => now });
  try {
    const account = Wallet.createRandom().address;
    await h.sim.faucet(account, "10000"); // funded in the creation second, before the first reading: capital
    const vault = { address: "0xV", exchange_account: account, created_at: second, last_observed_at: null } as unknown as VaultRow;
    const reader = createBalanceReader(createHyperliquidAdapter({ kind: "sim", url: h.sim.url, isTestnet: true }), () => now);
    now += 4;
    const first = await reader.read(vault);
    assert.is(first.balance, 10_000_000_000n, "the first reading, in the creation second");
    now += 30;
    await h.sim.faucet(account, "5000"); // 30 ms later, still in the creation second
    const after = await reader.read({ ...vault, last_observed_at: first.observedAt, netting_from: first.source.nettingFrom } as VaultRow);
    assert.is(after.balance, 10_000_000_000n, "a deposit in the creation second is not profit");
    assert.is(after.source.external, 5_000_000_000n);
  } finally {
    await h.close();
  }
});

test("a reading is stamped when the exchange answered, not when it was asked (a read may wait for budget)", async () => {
  let now = Date.now();
  const h = await startSim({ clock: () => now });
  try {
    const account = Wallet.createRandom().address;
    await h.sim.faucet(account, "100");
    const vault = { address: "0xV", exchange_account: account, created_at: Math.floor(now / 1000) - 10, last_observed_at: null } as unknown as VaultRow;
    const ex = createHyperliquidAdapter({ kind: "sim", url: h.sim.url, isTestnet: true });
    const asked = now;
    // The answer comes 7 s after the question, as behind a spent request budget.
    const slow: ExchangeAdapter = { ...ex, accountState: async (u, o) => { const s = await ex.accountState(u, o); now += 7_000; return s; } };
    const r = await createBalanceReader(slow, () => now).read(vault);
    assert.is(r.observedAt, Math.floor(asked / 1000) + 7);
  } finally {
    await h.close();
  }
});

test("the capacity warning counts each vault's periodic ledger and fills reads", () => {
  // 2 weight a cycle plus 20 + 20 every 5 minutes: 10 a minute at 60 s, 68 a minute at 2 s.
  assert.is(oracleCapacity(60_000, 1200), 120);
  assert.is(oracleCapacity(2_000, 1200), 17);
});

test.run();
