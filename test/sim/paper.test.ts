// The sim as a paper exchange for clients nobody here wrote: the info types SDKs and CCXT
// ask for, modify, scheduleCancel, transfers and their refusals, hourly funding, and the margin that
// resting orders hold. Signed by the real SDK over HTTP; time moves by the test's own clock.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { Wallet } from "ethers";
import { fundedWallet, postJson, randomCloid, startSim, statusesOf, type SimHarness } from "./_support.js";

const HOUR = 3_600_000;
// Just before a whole hour, near the real time (the SDK's nonces come from the real clock).
let now = Math.floor(Date.now() / HOUR) * HOUR + 59 * 60_000;
let h: SimHarness;
let w: Wallet;
let user: `0x${string}`;

test.before(async () => {
  h = await startSim({ clock: () => now, fundingRate: "0.0001", scheduleCancelMinVolumeUsd: "1000", housekeepingMs: 3_600_000 });
  w = await fundedWallet(h.sim, 10_000);
  user = w.address.toLowerCase() as `0x${string}`;
});
test.after(async () => {
  await h.close();
});

const gtc = (b: boolean, p: string, s: string, c?: `0x${string}`) =>
  ({ a: 0, b, p, s, r: false, t: { limit: { tif: "Gtc" as const } }, ...(c ? { c } : {}) });
const info = async (body: object) => (await postJson(h.sim.url, "/info", body)).json;

test("spotMeta, spotMetaAndAssetCtxs, perpDexs and userAbstraction answer as the venue does", async () => {
  const spot = await h.info.spotMeta();
  assert.equal(spot.universe, []);
  assert.equal(spot.tokens.map((t) => [t.name, t.index]), [["USDC", 0]]);
  assert.equal(await h.info.spotMetaAndAssetCtxs(), [spot, []]);
  assert.equal(await h.info.perpDexs(), [null]);
  assert.is(await h.info.userAbstraction({ user }), "disabled");
  const set = await postJson(h.sim.url, "/sim/abstraction", { user, abstraction: "unifiedAccount" });
  assert.is(set.status, 200);
  assert.is(await h.info.userAbstraction({ user }), "unifiedAccount");
  assert.is((await postJson(h.sim.url, "/sim/abstraction", { user, abstraction: "bogus" })).status, 400);
  await postJson(h.sim.url, "/sim/abstraction", { user, abstraction: "disabled" });
});

test("known but unmodelled info types get JSON; unknown types get the 422 text", async () => {
  assert.equal(await info({ type: "vaultSummaries" }), []);
  const res = await postJson(h.sim.url, "/info", { type: "noSuchThing" });
  assert.is(res.status, 422);
  assert.is(res.text, "Failed to deserialize the JSON body into the target type");
});

test("resting orders hold margin in totalMarginUsed and withdrawable", async () => {
  const before = await h.info.clearinghouseState({ user });
  assert.is(before.withdrawable, "10000.0");
  const [st] = await statusesOf(h.exchange(w).order({ orders: [gtc(true, "50000", "0.1")], grouping: "na" }));
  assert.ok(st.resting);
  const after = await h.info.clearinghouseState({ user });
  // 0.1 × 50000 / 20 = 250 held by the bid
  assert.is(after.marginSummary.totalMarginUsed, "250.0");
  assert.is(after.withdrawable, "9750.0");
  await h.exchange(w).cancel({ cancels: [{ a: 0, o: st.resting.oid }] });
});

test("modify replaces the order with a new oid and keeps the cloid; historicalOrders shows both", async () => {
  const c = randomCloid();
  const [st] = await statusesOf(h.exchange(w).order({ orders: [gtc(true, "50000", "0.01", c)], grouping: "na" }));
  await h.exchange(w).modify({ oid: st.resting.oid, order: gtc(true, "51000", "0.02", c) });
  const open = await h.info.openOrders({ user });
  assert.equal(open.map((o) => [o.limitPx, o.sz, o.cloid]), [["51000.0", "0.02", c]]);
  assert.ok(open[0].oid !== st.resting.oid);
  const byCloid: any = await h.info.orderStatus({ user, oid: c });
  assert.is(byCloid.order.order.oid, open[0].oid);
  const hist = await h.info.historicalOrders({ user });
  const old = hist.find((x) => x.order.oid === st.resting.oid)!;
  assert.is(old.status, "canceled");
  const res = await postJson(h.sim.url, "/info", { type: "historicalOrders", user });
  assert.is(res.status, 200);
  const [bm] = await statusesOf(h.exchange(w).batchModify({ modifies: [{ oid: open[0].oid, order: gtc(true, "52000", "0.02", c) }] }));
  assert.ok(bm.resting);
  await h.exchange(w).cancel({ cancels: [{ a: 0, o: bm.resting.oid }] });
});

test("scheduleCancel: volume gate, 5 s lead, firing cancels with status scheduledCancel", async () => {
  const poor = await fundedWallet(h.sim, 100);
  try {
    await h.exchange(poor).scheduleCancel({ time: now + 10_000 });
    assert.unreachable();
  } catch (e) {
    assert.match(String(e), /Cannot set scheduled cancel time until enough volume traded\. Required: \$1000\. Traded: \$0/);
  }
  // Trade past the $1000 gate.
  await statusesOf(h.exchange(w).order({ orders: [{ ...gtc(true, "61000", "0.02"), t: { limit: { tif: "Ioc" } } }], grouping: "na" }));
  try {
    await h.exchange(w).scheduleCancel({ time: now + 1000 });
    assert.unreachable();
  } catch (e) {
    assert.match(String(e), /at least 5 seconds/);
  }
  const [st] = await statusesOf(h.exchange(w).order({ orders: [gtc(true, "50000", "0.01")], grouping: "na" }));
  await h.exchange(w).scheduleCancel({ time: now + 10_000 });
  h.sim.tick();
  assert.is((await h.info.openOrders({ user })).length, 1, "not yet");
  now += 10_000;
  h.sim.tick();
  const status: any = await h.info.orderStatus({ user, oid: st.resting.oid });
  assert.is(status.order.status, "scheduledCancel");
  assert.equal(await h.info.openOrders({ user }), []);
});

test("hourly funding: paid by the long, in cumFunding, userFunding and fundingHistory", async () => {
  const before = await h.info.clearinghouseState({ user });
  const szi = before.assetPositions[0].position.szi; // 0.02 BTC long from the previous test
  assert.is(szi, "0.02");
  now = Math.floor(now / HOUR) * HOUR + HOUR; // the next whole hour
  h.sim.tick();
  // 0.02 × 60000 × 0.0001 = 0.12 paid
  const [f] = await h.info.userFunding({ user, startTime: 0 });
  assert.equal(f.delta, { type: "funding", coin: "BTC", usdc: "-0.12", szi: "0.02", fundingRate: "0.0001", nSamples: null });
  const after = await h.info.clearinghouseState({ user });
  assert.equal(after.assetPositions[0].position.cumFunding, { allTime: "0.12", sinceOpen: "0.12", sinceChange: "0.12" });
  const hist = await h.info.fundingHistory({ coin: "BTC", startTime: 0 });
  assert.equal(hist.at(-1), { coin: "BTC", fundingRate: "0.0001", premium: "0.0", time: now });
  const ledger: any[] = await h.info.userNonFundingLedgerUpdates({ user, startTime: 0 });
  assert.not.ok(ledger.some((l) => l.delta.type === "funding"), "funding stays out of the non-funding ledger");
});

test("candleSnapshot builds OHLC from the mark history and volume from the fills", async () => {
  const t0 = Math.floor(now / 60_000) * 60_000 + 60_000;
  now = t0 + 1000;
  h.sim.setPrice("BTC", "60100");
  now = t0 + 2000;
  h.sim.setPrice("BTC", "59900");
  now = t0 + 3000;
  h.sim.setPrice("BTC", "60050");
  now = t0 + 61_000;
  h.sim.setPrice("BTC", "60000");
  const candles = await h.info.candleSnapshot({ coin: "BTC", interval: "1m", startTime: t0 });
  assert.equal(candles[0], { t: t0, T: t0 + 59_999, s: "BTC", i: "1m", o: "60100.0", c: "60050.0", h: "60100.0", l: "59900.0", v: "0.0", n: 0 });
  assert.is(candles[1].t, t0 + 60_000);
  const hour = await h.info.candleSnapshot({ coin: "BTC", interval: "1h", startTime: t0 });
  assert.is(hour.length, 1);
  assert.equal([hour[0].h, hour[0].l], ["60100.0", "59900.0"]);
});

test("l2Book with nSigFigs aggregates levels; the book shows resting orders", async () => {
  const [st] = await statusesOf(h.exchange(w).order({ orders: [gtc(true, "59990", "0.5")], grouping: "na" }));
  const full = await h.info.l2Book({ coin: "BTC" });
  assert.ok(full!.levels[0].some((l) => l.px === "59990.0" && l.sz === "0.5"));
  const agg = await h.info.l2Book({ coin: "BTC", nSigFigs: 2 });
  // 2 significant figures of ~60000: 1000-wide buckets; bids floor to 59000, asks ceil to 61000
  assert.equal(agg!.levels[0].map((l) => l.px), ["59000.0"]);
  assert.equal(agg!.levels[1].map((l) => l.px), ["61000.0"]);
  assert.is(agg!.levels[0][0].n, full!.levels[0].reduce((n, l) => n + l.n, 0));
  await h.exchange(w).cancel({ cancels: [{ a: 0, o: st.resting.oid }] });
});

test("usdClassTransfer moves USDC between perp and spot; withdraw3 and usdSend to others are refused", async () => {
  await h.exchange(w).usdClassTransfer({ amount: "100", toPerp: false });
  const spot = await h.info.spotClearinghouseState({ user });
  assert.is(spot.balances[0].total, "100.0");
  await h.exchange(w).usdClassTransfer({ amount: "40", toPerp: true });
  assert.is((await h.info.spotClearinghouseState({ user })).balances[0].total, "60.0");
  for (const call of [
    () => h.exchange(w).withdraw3({ destination: user, amount: "1" }),
    () => h.exchange(w).usdSend({ destination: Wallet.createRandom().address, amount: "1" }),
  ]) {
    try {
      await call();
      assert.unreachable();
    } catch (e) {
      assert.match(String(e), /not possible on the sim/);
    }
  }
});

test("userFees, userRateLimit, userRole, referral and maxBuilderFee", async () => {
  const fees = await h.info.userFees({ user });
  assert.equal([fees.userCrossRate, fees.userAddRate], ["0.00045", "0.00015"]);
  const rl = await h.info.userRateLimit({ user });
  assert.ok(rl.nRequestsUsed > 0);
  assert.is(rl.nRequestsCap, 10_000 + Math.floor(Number(rl.cumVlm)));
  assert.equal(await h.info.userRole({ user }), { role: "user" });
  assert.equal(await h.info.userRole({ user: Wallet.createRandom().address.toLowerCase() as `0x${string}` }), { role: "missing" });
  assert.is((await h.info.referral({ user })).referredBy, null);
  assert.is(await h.info.maxBuilderFee({ user, builder: user }), 0);
});

test.run();
