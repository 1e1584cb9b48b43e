// POST /sim/adl: a position auto-deleveraged at the mark against a synthetic underwater account, its
// fill marked as docs/sim.md "Liquidations and auto-deleveraging" says (dir "Auto-Deleveraging", a
// `liquidation` naming the underwater account, no fee), and a liquidation's own fill marked
// "Liquidated Cross ..." naming the account itself.
import { Wallet } from "ethers";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { fundedWallet, postJson, startSim, type SimHarness } from "./_support.js";

let h: SimHarness;
const ADL_COUNTERPARTY = "0x00000000000000000000000000000000000000ad";

test.before(async () => {
  h = await startSim();
});
test.after(async () => {
  await h.close();
});

/** A market buy (or sell) at the sim's book; the mark is BTC's 60 000 unless moved. */
async function taker(w: Wallet, isBuy: boolean, size: string) {
  const r = await h.exchange(w).order({
    orders: [{ a: 0, b: isBuy, p: isBuy ? "61000" : "59000", s: size, r: false, t: { limit: { tif: "Ioc" } } }], grouping: "na",
  });
  const status = r.response.data.statuses[0];
  assert.ok(typeof status === "object" && "filled" in status, JSON.stringify(r));
}

const position = async (user: string) =>
  (await h.info.clearinghouseState({ user: user as `0x${string}` })).assetPositions.find((p) => p.position.coin === "BTC")?.position.szi;

test("a long in profit deleveraged whole: closed at the mark, no fee, the fill marked Auto-Deleveraging", async () => {
  h.sim.setPrice("BTC", "60000");
  const w = await fundedWallet(h.sim, 10_000);
  const user = w.address.toLowerCase();
  await taker(w, true, "0.1");
  h.sim.setPrice("BTC", "62000");
  const usdcBefore = (await h.info.clearinghouseState({ user: user as `0x${string}` })).crossMarginSummary.totalRawUsd;
  const res = await postJson(h.sim.url, "/sim/adl", { user: w.address, symbol: "BTC" });
  assert.is(res.status, 200, res.text);
  const { tid, closedPnl, ...rest } = res.json;
  assert.equal(rest, { ok: true, user, symbol: "BTC", side: "A", size: "0.1", price: "62000", position: "0" });
  assert.ok(Number(closedPnl) > 190 && Number(closedPnl) < 200, closedPnl);
  assert.is(await position(user), undefined, "the position is gone");

  const fill = (await h.info.userFills({ user: user as `0x${string}` })).find((f) => f.tid === tid)!;
  assert.equal(
    [fill.dir, fill.side, fill.px, fill.sz, fill.fee, fill.crossed, fill.startPosition, fill.closedPnl.replace(/\.0$/, "")],
    ["Auto-Deleveraging", "A", "62000.0", "0.1", "0.0", false, "0.1", closedPnl],
  );
  assert.equal(fill.liquidation, { liquidatedUser: ADL_COUNTERPARTY, markPx: "62000.0", method: "backstop" });
  const after = (await h.info.clearinghouseState({ user: user as `0x${string}` })).crossMarginSummary.totalRawUsd;
  assert.ok(Number(after) > Number(usdcBefore), "the profit was paid, no fee taken");
  const ledger = await h.info.userNonFundingLedgerUpdates({ user: user as `0x${string}`, startTime: 0 });
  assert.equal(ledger.map((l) => l.delta.type), ["deposit"], "a deleveraging is a fill, not a ledger record");
});

test("a size deleverages part of a short; the rest stays", async () => {
  h.sim.setPrice("BTC", "60000");
  const w = await fundedWallet(h.sim, 10_000);
  await taker(w, false, "0.1");
  const res = await postJson(h.sim.url, "/sim/adl", { user: w.address, symbol: "BTC", size: 0.04 });
  assert.is(res.status, 200, res.text);
  assert.equal([res.json.side, res.json.size, res.json.position], ["B", "0.04", "-0.06"]);
  assert.is(await position(w.address.toLowerCase()), "-0.06");
  assert.equal(h.sim.deleverage(w.address, "BTC").position, "0", "the programmatic API takes the rest");
});

test("refused with 400: no position, more than the position, a size off the lot, an unknown symbol, a bad body", async () => {
  h.sim.setPrice("BTC", "60000");
  const w = await fundedWallet(h.sim, 10_000);
  const none = await postJson(h.sim.url, "/sim/adl", { user: w.address, symbol: "BTC" });
  assert.equal([none.status, none.json.ok], [400, false]);
  assert.match(none.json.error, /has no BTC position to deleverage/);
  await taker(w, true, "0.1");
  const cases: Array<[unknown, RegExp]> = [
    [{ user: w.address, symbol: "BTC", size: "0.2" }, /more than the BTC position of 0\.1/],
    [{ user: w.address, symbol: "BTC", size: "0.000001" }, /at most 5 decimals/],
    [{ user: w.address, symbol: "BTC", size: -1 }, /bad size/],
    [{ user: w.address, symbol: "DOGE" }, /unknown symbol DOGE/],
    [{ user: "0x123", symbol: "BTC" }, /bad user address/],
    [{ user: w.address }, /expected \{user, symbol, size\?\}/],
  ];
  for (const [body, error] of cases) {
    const r = await postJson(h.sim.url, "/sim/adl", body);
    assert.is(r.status, 400, JSON.stringify(body));
    assert.match(r.json.error, error);
  }
  assert.is(await position(w.address.toLowerCase()), "0.1", "nothing refused moved the position");
  assert.is((await fetch(`${h.sim.url}/sim/adl`)).status, 405);
});

test("a liquidation's own fill: dir Liquidated Cross Long, liquidation naming the account itself", async () => {
  h.sim.setPrice("BTC", "60000");
  const w = await fundedWallet(h.sim, 1_000);
  const user = w.address.toLowerCase() as `0x${string}`;
  await taker(w, true, "0.3");
  assert.equal(h.sim.setPrice("BTC", "57000").liquidated, [user]);
  const [fill] = (await h.info.userFills({ user })).filter((f) => f.liquidation);
  assert.equal([fill!.dir, fill!.liquidation], ["Liquidated Cross Long", { liquidatedUser: user, markPx: "57000.0", method: "market" }]);
});

test.run();
