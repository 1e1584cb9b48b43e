// Performance figures of a scripted vault life, against values worked by hand. The readings and
// fills are inserted through the repositories into a real store; funding is paid by the real sim
// (over HTTP, through the adapter) on a real position, hour by hour on the sim's clock. Then the same
// life over HTTP: the parties read the figures, a stranger is told there is no such vault.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { getAddress, type Wallet } from "ethers";
import { appendFills } from "../../daemon/db/vault-trades-repo.js";
import { findVault, insertEvent, insertVault } from "../../daemon/db/vaults-repo.js";
import type { NewVault } from "../../daemon/db/schema-chain.js";
import type { Store } from "../../daemon/db/store.js";
import { createHyperliquidAdapter } from "../../daemon/exchange/hyperliquid-adapter.js";
import { readBudget } from "../../daemon/exchange/read-budget.js";
import { createUserReads } from "../../daemon/exchange/user-reads.js";
import { createVaultPerformance } from "../../daemon/vaults/vault-performance.js";
import { party, startTestDaemon } from "../helpers/daemon.js";
import { randomAddress, randomHash, vaultRow } from "../helpers/rows.js";
import { openTestStore } from "../helpers/stores.js";
import { fundedWallet, startSim, statusesOf } from "../sim/_support.js";

const HOUR_MS = 3_600_000;
const T0 = Date.UTC(2026, 10, 1) / 1000; // 2026-11-01T00:00:00Z, the vault's creation
const H = 3600;
const usdc = (n: number) => String(BigInt(Math.round(n * 1e6)));

/**
 * The life: initial balance 1000, trader's share 20%. Readings (USDC) at hours after T0:
 *   day 1: 6h 1010, 18h 1050 (peak)
 *   day 2: 27h 990 (60 below 1050: 5.714...% -> 5.71, the deepest), 44h 1000
 *   day 3: 60h 1100 (new peak), 71h59m59s 1045 (55 below 1100: exactly 5%)
 *   day 4: no reading;  day 5: 108h 1120 (the latest)
 */
const READINGS: Array<[number, number]> = [[6 * H, 1010], [18 * H, 1050], [27 * H, 990], [44 * H, 1000], [60 * H, 1100], [72 * H - 1, 1045], [108 * H, 1120]];
const FEES = ["0.35", "1.2", "-0.05", "0.123456"]; // sum 1.623456 (a rebate counts against)

async function scriptLife(store: Store, parties: { investor?: string; trader?: string; account?: string } = {}, more: Partial<NewVault> = {}) {
  const row = { ...vaultRow(getAddress(randomAddress())), initial_balance: usdc(1000), trader_share_bps: 2000, created_at: T0, current_balance: usdc(1120), last_observed_at: T0 + 108 * H, ...more };
  if (parties.investor) row.investor = parties.investor;
  if (parties.trader) row.trader = parties.trader;
  if (parties.account) row.exchange_account = parties.account;
  await store.write(async (trx) => {
    await insertVault(trx, row);
    const v = (await findVault(trx, row.address))!;
    await insertEvent(trx, v, { type: "VaultCreated", txHash: randomHash(), logIndex: 0, blockNumber: 1, time: T0, data: {} });
    for (const [i, [at, balance]] of READINGS.entries()) {
      // Stored as the oracle stores them (positional); peak and day start are the contract's business, not read here.
      await insertEvent(trx, v, {
        type: "BalanceUpdated", txHash: randomHash(), logIndex: 0, blockNumber: 2 + i, time: T0 + at + 5,
        data: { balance: usdc(balance), peakBalance: "0", dayStartBalance: "0", observedAt: T0 + at, drawdownBps: 0, dailyDrawdownBps: 0 },
      });
    }
    await insertEvent(trx, v, { type: "Paused", txHash: randomHash(), logIndex: 0, blockNumber: 20, time: T0 + 28 * H, data: { reason: 1 } });
    await appendFills(trx, row.address, row.exchange_account, FEES.map((fee, i) => ({
      tid: 900_000 + i, oid: 1, symbol: "ETH", side: "buy", size: "0.1", price: "3000", pnl: "0", fee, timeMs: (T0 + i * H) * 1000,
    })));
  });
  return row;
}

const EXPECTED_DAILY = [
  { day: "2026-11-01", closingBalance: "1050", pnl: "50" },
  { day: "2026-11-02", closingBalance: "1000", pnl: "-50" },
  { day: "2026-11-03", closingBalance: "1045", pnl: "45" },
  { day: "2026-11-05", closingBalance: "1120", pnl: "75" },
];

/** A maker buy of `sz` ETH at exactly `px` (rests above the mark, fills when the mark comes down to it). */
async function makerBuy(h: Awaited<ReturnType<typeof startSim>>, wallet: Wallet, px: string, sz: string) {
  h.sim.setPrice("ETH", String(Number(px) + 10));
  const [st] = await statusesOf(h.exchange(wallet).order({ orders: [{ a: 1, b: true, p: px, s: sz, r: false, t: { limit: { tif: "Gtc" } } }], grouping: "na" }));
  assert.ok(st.resting, JSON.stringify(st));
  h.sim.setPrice("ETH", px);
}

test("the figures of a scripted life equal the hand-worked values; funding is what the sim charged", async () => {
  let now = Math.floor(Date.now() / HOUR_MS) * HOUR_MS + 59 * 60_000; // near the real time: the SDK's nonces use it
  const h = await startSim({ clock: () => now, fundingRate: "0.0001", housekeepingMs: HOUR_MS });
  const s = await openTestStore();
  try {
    const payer = await fundedWallet(h.sim, 10_000);
    await makerBuy(h, payer, "3000", "1");
    h.sim.tick(); // opens the funding period
    for (let i = 0; i < 2; i++) {
      now += HOUR_MS;
      h.sim.tick(); // 1 ETH x 3000 x 0.0001 = 0.3 an hour, paid by the long
    }
    const row = await scriptLife(s.store, { account: payer.address });
    const exchange = createHyperliquidAdapter({ kind: "sim", url: h.sim.url, isTestnet: true });
    const reads = createUserReads({ exchange, budget: readBudget({ perUser: 120, allUsers: 300, clock: Date.now }), ttlMs: 5_000, clock: Date.now });
    const p = await createVaultPerformance({ db: s.store.db, reads }).performance(row.investor, row.address);
    assert.equal(p, {
      returnPct: "12", // 120 / 1000
      annualizedReturnPct: "973.33", // 12% x 365 / 4.5 days = 973.333...%
      maxDrawdownPct: "5.71", // (1050 - 990) / 1050 = 5.714...%
      maxDrawdownAt: T0 + 27 * H,
      daily: EXPECTED_DAILY,
      feesPaid: "1.623456",
      fundingPaid: "0.6", // two hours at 0.3
      ifClosedNow: { profit: "120", traderShare: "24", investorShare: "96", asOf: T0 + 108 * H }, // the latest reading's
    });
  } finally {
    await s.close();
    await h.close();
  }
});

test("over HTTP: the parties read the figures as numbers and text; a stranger finds no vault", async () => {
  const d = await startTestDaemon({ startOracle: false });
  try {
    const [ivy, tom, eve] = [await party(d), await party(d), await party(d)];
    const row = await scriptLife(d.daemon.store, { investor: ivy.address, trader: tom.address });
    const path = `/api/vaults/${row.address}/performance`;
    for (const who of [ivy, tom]) {
      const r = await d.http.get(path, { token: who.token });
      assert.is(r.status, 200, JSON.stringify(r.body));
      assert.equal(r.body.data.performance, {
        returnPct: 12, annualizedReturnPct: 973.33, maxDrawdownPct: 5.71, maxDrawdownAt: T0 + 27 * H, daily: EXPECTED_DAILY,
        feesPaid: "1.623456", fundingPaid: "0", ifClosedNow: { profit: "120", traderShare: "24", investorShare: "96", asOf: T0 + 108 * H },
      });
    }
    const stranger = await d.http.get(path, { token: eve.token });
    assert.equal([stranger.status, stranger.body.error.code], [404, "NOT_FOUND"]);
    assert.is((await d.http.get(path)).status, 401);
    const bad = await d.http.get("/api/vaults/not-an-address/performance", { token: ivy.token });
    assert.equal([bad.status, bad.body.error.code], [400, "INVALID_INPUT"]);
  } finally {
    await d.close();
  }
});

test("a closed vault answers no 'if closed now' (its settlement is the vault's); before the first reading it stands on the initial balance", async () => {
  const d = await startTestDaemon({ startOracle: false });
  try {
    const ivy = await party(d);
    const closed = await scriptLife(d.daemon.store, { investor: ivy.address }, { closed: 1, closed_at: T0 + 108 * H + 60, final_balance: usdc(1120) });
    const fresh = { ...vaultRow(getAddress(randomAddress())), investor: ivy.address, last_observed_at: null };
    await d.daemon.store.write((trx) => insertVault(trx, fresh));
    const read = async (address: string) => (await d.http.get(`/api/vaults/${address}/performance`, { token: ivy.token })).body.data.performance;
    const after = await read(closed.address);
    assert.equal([after.returnPct, after.ifClosedNow], [12, null], "the other figures stand on the final balance");
    assert.equal((await read(fresh.address)).ifClosedNow, { profit: "0", traderShare: "0", investorShare: "0", asOf: null });
  } finally {
    await d.close();
  }
});

test.run();
