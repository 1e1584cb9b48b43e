// Cross-margin arithmetic on one account, worked by hand. BTC: max leverage 40, so maintenance
// margin = notional / 80 and l = 1/80 = 0.0125; default leverage 20x; maker 0.015%, taker 0.045%.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { Wallet } from "ethers";
import { fundedWallet, startSim, statusesOf, type SimHarness } from "./_support.js";

let h: SimHarness;
let w: Wallet;
let user: `0x${string}`;

test.before(async () => {
  h = await startSim();
  w = await fundedWallet(h.sim, 1000);
  user = w.address.toLowerCase() as `0x${string}`;
});
test.after(async () => {
  await h.close();
});

const ioc = (b: boolean, p: string, s: string) => ({ a: 0, b, p, s, r: false, t: { limit: { tif: "Ioc" as const } } });
const position = async () => (await h.info.clearinghouseState({ user })).assetPositions[0]?.position;

test("a maker fill opens a long at its limit price", async () => {
  h.sim.setPrice("BTC", "60100"); // best ask 60107: a bid at 60000 rests
  const [st] = await statusesOf(h.exchange(w).order({ orders: [{ ...ioc(true, "60000", "0.1"), t: { limit: { tif: "Gtc" } } }], grouping: "na" }));
  assert.ok(st.resting);
  h.sim.setPrice("BTC", "60000");
  // fee = 0.1 × 60000 × 0.00015 = 0.9  →  USDC 1000 - 0.9 = 999.1
  const s = await h.info.clearinghouseState({ user });
  assert.is(s.marginSummary.accountValue, "999.1");
  const p = s.assetPositions[0].position;
  assert.equal([p.szi, p.entryPx, p.positionValue, p.unrealizedPnl, p.marginUsed], ["0.1", "60000.0", "6000.0", "0.0", "300.0"]);
  // margin_available = 999.1 - 6000/80 = 924.1
  // liq = 60000 - 924.1 / 0.1 / (1 - 0.0125) = 60000 - 9357.9746835... = 50642.025316
  assert.is(p.liquidationPx, "50642.025316");
});

test("unrealized PnL, margin and the liquidation price after the mark falls", async () => {
  h.sim.setPrice("BTC", "59000");
  const s = await h.info.clearinghouseState({ user });
  const p = s.assetPositions[0].position;
  // uPnL = 0.1 × (59000 - 60000) = -100; account value = 999.1 - 100 = 899.1
  assert.equal([p.unrealizedPnl, p.positionValue, p.marginUsed], ["-100.0", "5900.0", "295.0"]);
  assert.is(p.returnOnEquity, "-0.33333333"); // -100 / (6000 / 20)
  assert.equal(p.leverage, { type: "cross", value: 20 });
  assert.equal(s.marginSummary, { accountValue: "899.1", totalNtlPos: "5900.0", totalRawUsd: "-5000.9", totalMarginUsed: "295.0" });
  assert.is(s.crossMaintenanceMarginUsed, "73.75"); // 5900 / 80
  assert.is(s.withdrawable, "309.1"); // 899.1 - max(295, 10% of 5900)
  // liq = 59000 - (899.1 - 73.75) / 0.1 / 0.9875 = 59000 - 8357.97468... = 50642.025316 (unchanged)
  assert.is(p.liquidationPx, "50642.025316");
});

test("reducing realizes PnL against the entry price", async () => {
  // Sells hit the best bid: 59000 × 0.9999 = 58994.1 → 58994.
  const [st] = await statusesOf(h.exchange(w).order({ orders: [ioc(false, "58000", "0.04")], grouping: "na" }));
  assert.equal(st.filled.avgPx, "58994.0");
  const [fill] = await h.info.userFills({ user });
  // closedPnl = 0.04 × (58994 - 60000) = -40.24; fee = 0.04 × 58994 × 0.00045 = 1.061892
  assert.equal([fill.dir, fill.startPosition, fill.closedPnl, fill.fee], ["Close Long", "0.1", "-40.24", "1.061892"]);
  const p = await position();
  assert.equal([p.szi, p.entryPx], ["0.06", "60000.0"]);
});

test("a sell larger than the long flips it: close at a loss, open a short at the fill price", async () => {
  await statusesOf(h.exchange(w).order({ orders: [ioc(false, "58000", "0.1")], grouping: "na" }));
  const [fill] = await h.info.userFills({ user });
  // closes 0.06: -60.36; fee 0.1 × 58994 × 0.00045 = 2.65473
  assert.equal([fill.dir, fill.closedPnl, fill.fee], ["Long > Short", "-60.36", "2.65473"]);
  const s = await h.info.clearinghouseState({ user });
  const p = s.assetPositions[0].position;
  assert.equal([p.szi, p.entryPx, p.unrealizedPnl], ["-0.04", "58994.0", "-0.24"]);
  // USDC 999.1 - 40.24 - 1.061892 - 60.36 - 2.65473 = 894.783378; account value = that - 0.24
  assert.is(s.marginSummary.accountValue, "894.543378");
  // short: liq = 59000 + (894.543378 - 29.5) / 0.04 / 1.0125 = 59000 + 21359.0957530... = 80359.095753
  assert.is(p.liquidationPx, "80359.095753");
});

test("leverage changes margin used; out-of-range leverage is refused", async () => {
  await h.exchange(w).updateLeverage({ asset: 0, isCross: true, leverage: 10 });
  const p = await position();
  assert.equal(p.leverage, { type: "cross", value: 10 });
  assert.is(p.marginUsed, "236.0"); // 0.04 × 59000 / 10
  try {
    await h.exchange(w).updateLeverage({ asset: 0, isCross: true, leverage: 41 });
    assert.unreachable();
  } catch (e) {
    assert.match(String(e), /Invalid leverage/);
  }
});

test("crossing the liquidation price liquidates at the mark", async () => {
  // At 80358 the account is still above maintenance: 40.223378 >= 40.179.
  assert.equal(h.sim.setPrice("BTC", "80358").liquidated, []);
  // At 80360: account value 40.143378 < maintenance 0.04 × 80360 / 80 = 40.18.
  assert.equal(h.sim.setPrice("BTC", "80360").liquidated, [user]);
  const s = await h.info.clearinghouseState({ user });
  assert.equal(s.assetPositions, []);
  const [fill] = await h.info.userFills({ user });
  assert.equal(fill.liquidation, { liquidatedUser: user, markPx: "80360.0", method: "market" });
  // closedPnl = 0.04 × (58994 - 80360) = -854.64; fee 0.04 × 80360 × 0.00045 = 1.44648
  assert.equal([fill.px, fill.closedPnl, fill.fee, fill.dir], ["80360.0", "-854.64", "1.44648", "Liquidated Cross Short"]);
  assert.is(s.marginSummary.accountValue, "38.696898");
  const ledger: any[] = await h.info.userNonFundingLedgerUpdates({ user, startTime: 0 });
  assert.equal(ledger.map((l) => l.delta.type), ["deposit", "liquidation"]);
  assert.equal(ledger[0].delta, { type: "deposit", usdc: "1000.0" });
});

test.run();
