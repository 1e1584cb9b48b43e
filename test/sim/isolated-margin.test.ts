// Isolated margin through @nktkas/hyperliquid over HTTP (real signatures), worked by hand. ETH: max
// leverage 25, so maintenance margin = notional / 50 and l = 1/50 = 0.02; maker 0.015%, taker 0.045%.
// The account starts with 1000 USDC and trades ETH isolated at 10x.
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { Wallet } from "ethers";
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

const gtc = (a: number, b: boolean, p: string, s: string) =>
  ({ orders: [{ a, b, p, s, r: false, t: { limit: { tif: "Gtc" as const } } }], grouping: "na" as const });
const state = () => h.info.clearinghouseState({ user });
const eth = async () => (await state()).assetPositions.find((p) => p.position.coin === "ETH")?.position;
/** The venue's refusal text, whether the SDK resolved or threw. */
const refusal = (call: Promise<unknown>) => call.then(() => "accepted", (e) => String(e?.response?.response ?? e));
const margin = (ntli: number) => h.exchange(w).updateIsolatedMargin({ asset: 1, isBuy: true, ntli });

/** A maker buy of `sz` ETH at exactly `px`: rests while the mark is above it, fills when the mark reaches it. */
async function makerBuy(wallet: Wallet, px: string, sz: string, sim: SimHarness = h): Promise<void> {
  sim.sim.setPrice("ETH", String(Number(px) + 10));
  const [st] = await statusesOf(sim.exchange(wallet).order(gtc(1, true, px, sz)));
  assert.ok(st.resting, JSON.stringify(st));
  sim.sim.setPrice("ETH", px);
}

test("opening isolated moves the initial margin out of the cross balance", async () => {
  await h.exchange(w).updateLeverage({ asset: 1, isCross: false, leverage: 10 });
  await makerBuy(w, "3000", "1");
  const s = await state();
  const p = s.assetPositions[0]!.position;
  // margin = 3000 / 10 = 300; fee = 3000 × 0.00015 = 0.45; cross = 1000 - 300 - 0.45 = 699.55
  assert.equal(p.leverage, { type: "isolated", value: 10, rawUsd: "-2700.0" }); // 300 - 1 × 3000
  assert.equal([p.szi, p.entryPx, p.positionValue, p.unrealizedPnl, p.marginUsed], ["1.0", "3000.0", "3000.0", "0.0", "300.0"]);
  assert.equal(s.crossMarginSummary, { accountValue: "699.55", totalNtlPos: "0.0", totalRawUsd: "699.55", totalMarginUsed: "0.0" });
  assert.equal(s.marginSummary, { accountValue: "999.55", totalNtlPos: "3000.0", totalRawUsd: "-2000.45", totalMarginUsed: "300.0" });
  assert.equal([s.withdrawable, s.crossMaintenanceMarginUsed], ["699.55", "0.0"]);
  // From its own margin only: 3000 - (300 - 3000/50) / 1 / (1 - 0.02) = 3000 - 244.897959... (cross would give 2041.3)
  assert.is(p.liquidationPx, "2755.102041");
});

test("adding margin moves USDC from cross into the position and lowers its liquidation price", async () => {
  // At most what cross could withdraw: 699.55.
  assert.is(await refusal(margin(699_550_001)), "Account does not have sufficient margin available for increase.");
  await margin(100_000_000);
  const s = await state();
  const p = s.assetPositions[0]!.position;
  assert.equal([p.marginUsed, p.leverage], ["400.0", { type: "isolated", value: 10, rawUsd: "-2600.0" }]);
  assert.equal([s.crossMarginSummary.accountValue, s.marginSummary.accountValue, s.withdrawable], ["599.55", "999.55", "599.55"]);
  assert.is(p.liquidationPx, "2653.061224"); // 3000 - (400 - 60) / 0.98
});

test("removing margin is refused below the initial margin at the position's leverage", async () => {
  // Needs max(3000 / 10, 10% of 3000) = 300 of its 400: 100 may leave, not a micro-dollar more.
  assert.is(await refusal(margin(-100_000_001)), "Position does not have sufficient margin for reduction.");
  await margin(-100_000_000);
  assert.is((await eth())!.marginUsed, "300.0");
  assert.is((await state()).crossMarginSummary.accountValue, "699.55");
});

test("leverage: the type cannot switch with the position open; lowering needs the margin", async () => {
  const lev = (isCross: boolean, leverage: number) => refusal(h.exchange(w).updateLeverage({ asset: 1, isCross, leverage }));
  assert.is(await lev(true, 10), "Cannot switch leverage type with open position.");
  // 5x needs 3000 / 5 = 600 of margin; the position holds 300.
  assert.is(await lev(false, 5), "Isolated position does not have sufficient margin available to decrease leverage. To decrease leverage, add margin to the position.");
  assert.is(await lev(false, 10), "accepted");
  assert.equal((await eth())!.leverage, { type: "isolated", value: 10, rawUsd: "-2700.0" });
});

test("refusals for empty, cross and zero updates", async () => {
  assert.is(await refusal(margin(0)), "Update to isolated margin cannot be zero.");
  assert.is(await refusal(h.exchange(w).updateIsolatedMargin({ asset: 0, isBuy: true, ntli: 1_000_000 })), "Cannot update margin for empty position.");
  const other = await fundedWallet(h.sim, 1000);
  await makerBuy(other, "3000", "0.1"); // cross, the default
  const onCross = h.exchange(other).updateIsolatedMargin({ asset: 1, isBuy: true, ntli: 1_000_000 });
  assert.is(await refusal(onCross), "Position does not use isolated margin.");
});

test("an isolated position is liquidated on its own margin; the cross balance gets back what is left", async () => {
  h.sim.setPrice("ETH", "2760"); // margin 300 - 240 = 60 >= maintenance 2760 / 50 = 55.2: still open
  assert.is((await eth())!.marginUsed, "60.0");
  // 50 < 2750 / 50 = 55: liquidated, though the cross balance (699.55) would have carried it.
  assert.equal(h.sim.setPrice("ETH", "2750").liquidated, [user]);
  const s = await state();
  assert.is(s.assetPositions.length, 0);
  const [fill] = await h.info.userFills({ user });
  assert.equal([fill!.dir, fill!.px, fill!.closedPnl, fill!.fee, fill!.liquidation?.markPx], ["Liquidated Isolated Long", "2750.0", "-250.0", "1.2375", "2750.0"]);
  // 699.55 + 300 (its margin) - 250 - 1.2375 = 748.3125
  assert.is(s.crossMarginSummary.accountValue, "748.3125");
  const ledger = await h.info.userNonFundingLedgerUpdates({ user, startTime: 0 });
  const liq = ledger.find((u) => u.delta.type === "liquidation")?.delta as { leverageType?: string } | undefined;
  assert.is(liq?.leverageType, "Isolated");
});

test("a loss beyond the isolated margin never reaches the cross balance", async () => {
  await makerBuy(w, "3000", "1"); // isolated again at 10x: margin 300, fee 0.45 → cross 748.3125 - 300.45 = 447.8625
  assert.is((await state()).crossMarginSummary.accountValue, "447.8625");
  // A gap to 2000: the loss (1000 + fee 0.9) exceeds the 300 of margin; cross keeps its 447.8625.
  assert.equal(h.sim.setPrice("ETH", "2000").liquidated, [user]);
  const s = await state();
  assert.equal([s.assetPositions.length, s.crossMarginSummary.accountValue, s.withdrawable], [0, "447.8625", "447.8625"]);
});

test("back to cross once flat", async () => {
  await h.exchange(w).updateLeverage({ asset: 1, isCross: true, leverage: 10 });
  await makerBuy(w, "2000", "0.1");
  assert.equal((await eth())!.leverage, { type: "cross", value: 10 });
});

test("funding on an isolated position is paid from its margin, not from cross", async () => {
  const HOUR = 3_600_000;
  // Just before a whole hour, near the real time (the SDK's nonces come from the real clock).
  let now = Math.floor(Date.now() / HOUR) * HOUR + 59 * 60_000;
  const f = await startSim({ clock: () => now, fundingRate: "0.0001", housekeepingMs: HOUR });
  try {
    const payer = await fundedWallet(f.sim, 1000);
    const who = payer.address.toLowerCase() as `0x${string}`;
    await f.exchange(payer).updateLeverage({ asset: 1, isCross: false, leverage: 10 });
    await makerBuy(payer, "3000", "1", f);
    f.sim.tick(); // opens the funding period
    now += HOUR;
    f.sim.tick();
    const s = await f.info.clearinghouseState({ user: who });
    // 1 × 3000 × 0.0001 = 0.3 out of the position's 300; cross keeps 1000 - 300 - 0.45
    assert.equal([s.assetPositions[0]!.position.marginUsed, s.crossMarginSummary.accountValue], ["299.7", "699.55"]);
  } finally {
    await f.close();
  }
});

test.run();
