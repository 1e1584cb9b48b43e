// Trigger (TP/SL) orders in the sim, over HTTP with the real SDK: they rest off the book, fire when
// the mark crosses their trigger price, then execute as market (IOC bounded by `p`) or limit orders.
// BTC mark 60000, book half-spread 1 bp: asks 60006.., bids 59994..
import { Wallet } from "ethers";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { fundedWallet, randomCloid, startSim, statusesOf, type SimHarness } from "./_support.js";
import { Probe } from "./ws-probe.js";
import { join } from "node:path";
import { tempDir } from "../helpers/util.js";
import Database from "better-sqlite3";

let h: SimHarness;
test.before(async () => {
  h = await startSim();
});
test.after(async () => {
  await h.close();
});
test.before.each(() => {
  h.sim.setPrice("BTC", "60000");
});

const BTC = 0;
const user = (w: Wallet) => w.address.toLowerCase() as `0x${string}`;

type Grouping = "na" | "normalTpsl" | "positionTpsl";
const limit = (b: boolean, p: string, s: string, tif: "Gtc" | "Ioc" = "Ioc") => ({ a: BTC, b, p, s, r: false, t: { limit: { tif } } });
function trigger(b: boolean, tpsl: "tp" | "sl", triggerPx: string, p: string, s: string, o: { isMarket?: boolean; r?: boolean; c?: `0x${string}` } = {}) {
  return {
    a: BTC, b, p, s, r: o.r ?? true, t: { trigger: { isMarket: o.isMarket ?? true, triggerPx, tpsl } }, ...(o.c ? { c: o.c } : {}),
  };
}
async function place(w: Wallet, orders: any[], grouping: Grouping = "na"): Promise<any[]> {
  return statusesOf(h.exchange(w).order({ orders, grouping }));
}
async function szi(w: Wallet): Promise<string> {
  const state = await h.info.clearinghouseState({ user: user(w) });
  return state.assetPositions.find((p) => p.position.coin === "BTC")?.position.szi ?? "0";
}
async function status(w: Wallet, oid: number | `0x${string}`): Promise<string> {
  const s: any = await h.info.orderStatus({ user: user(w), oid });
  return s.order.status;
}
/** A funded account long 0.01 BTC (bought at the best ask, 60006). */
async function long(): Promise<Wallet> {
  const w = await fundedWallet(h.sim);
  const [st] = await place(w, [limit(true, "60100", "0.01")]);
  assert.ok(st.filled, JSON.stringify(st));
  return w;
}

test("a stop-loss on a long rests off the book, fires when the mark falls through it and leaves the account flat", async () => {
  const w = await long();
  const [st] = await place(w, [trigger(false, "sl", "59000", "53100", "0.01")]);
  assert.ok(st.resting?.oid, JSON.stringify(st));
  const book = await h.info.l2Book({ coin: "BTC" });
  assert.not.ok(book!.levels[1].some((l) => l.px === "53100.0"), "an untriggered order is not on the book");
  h.sim.setPrice("BTC", "59500"); // above the trigger: nothing happens
  assert.is(await szi(w), "0.01");
  assert.is(await status(w, st.resting.oid), "open");
  h.sim.setPrice("BTC", "58900");
  assert.is(await szi(w), "0");
  assert.is(await status(w, st.resting.oid), "filled");
  const [fill] = await h.info.userFills({ user: user(w) });
  assert.is(fill!.oid, st.resting.oid);
  assert.is(fill!.dir, "Close Long");
  assert.is(fill!.crossed, true);
  assert.is(fill!.px, "58894.0", "a market trigger takes the best bid at the new mark");
  assert.equal(await h.info.openOrders({ user: user(w) }), []);
});

test("a take-profit on a long fires when the mark rises through it; a short's stop fires on a rise", async () => {
  const w = await long();
  const [tp] = await place(w, [trigger(false, "tp", "61000", "54900", "0.01")]);
  h.sim.setPrice("BTC", "60900");
  assert.is(await szi(w), "0.01");
  h.sim.setPrice("BTC", "61200");
  assert.is(await szi(w), "0");
  assert.is(await status(w, tp.resting.oid), "filled");
  const [fill] = await h.info.userFills({ user: user(w) });
  assert.is(fill!.px, "61193.0");

  const s = await fundedWallet(h.sim);
  h.sim.setPrice("BTC", "60000");
  await place(s, [limit(false, "59900", "0.01")]);
  assert.is(await szi(s), "-0.01");
  const [sl] = await place(s, [trigger(true, "sl", "61000", "67100", "0.01")]);
  h.sim.setPrice("BTC", "59000"); // a fall takes a short's stop nowhere
  assert.is(await status(s, sl.resting.oid), "open");
  h.sim.setPrice("BTC", "61000");
  assert.is(await szi(s), "0");
  assert.is(await status(s, sl.resting.oid), "filled");
});

test("a market trigger never fills beyond its order price: a gap past p cancels it", async () => {
  const w = await long();
  const [st] = await place(w, [trigger(false, "sl", "59000", "58000", "0.01")]);
  h.sim.setPrice("BTC", "57000");
  assert.is(await status(w, st.resting.oid), "canceled");
  assert.is(await szi(w), "0.01");
});

test("a trigger canceled before it fires never fills, by oid or by cloid", async () => {
  const w = await long();
  const c = randomCloid();
  const [a] = await place(w, [trigger(false, "sl", "59000", "53100", "0.01")]);
  const [b] = await place(w, [trigger(false, "sl", "59100", "53100", "0.01", { c })]);
  assert.is(b.resting.cloid, c);
  assert.equal(await statusesOf(h.exchange(w).cancel({ cancels: [{ a: BTC, o: a.resting.oid }] })), ["success"]);
  assert.equal(await statusesOf(h.exchange(w).cancelByCloid({ cancels: [{ asset: BTC, cloid: c }] })), ["success"]);
  h.sim.setPrice("BTC", "58000");
  assert.is(await szi(w), "0.01");
  assert.is(await status(w, a.resting.oid), "canceled");
  assert.is(await status(w, c), "canceled");
  assert.is((await h.info.userFills({ user: user(w) })).length, 1, "only the opening fill");
});

test("a limit trigger becomes a resting limit order at its price when it fires, and fills there", async () => {
  const w = await long();
  const [st] = await place(w, [trigger(false, "sl", "59000", "59500", "0.01", { isMarket: false })]);
  h.sim.setPrice("BTC", "58900");
  assert.is(await status(w, st.resting.oid), "open");
  assert.is(await szi(w), "0.01", "a sell at 59500 does not cross bids near 58900");
  const [fe] = await h.info.frontendOpenOrders({ user: user(w) });
  assert.is(fe!.oid, st.resting.oid);
  assert.is(fe!.limitPx, "59500.0");
  assert.is(fe!.triggerCondition, "Triggered");
  assert.is(fe!.orderType, "Stop Limit");
  const book = await h.info.l2Book({ coin: "BTC" });
  assert.ok(book!.levels[1].some((l) => l.px === "59500.0"), "a fired limit trigger is on the book");
  h.sim.setPrice("BTC", "59600");
  assert.is(await szi(w), "0");
  const [fill] = await h.info.userFills({ user: user(w) });
  assert.is(fill!.px, "59500.0");
  assert.is(fill!.crossed, false);
});

test("openOrders and frontendOpenOrders show trigger orders with the venue's fields", async () => {
  const w = await long();
  const c = randomCloid();
  const [sl] = await place(w, [trigger(false, "sl", "59000", "53100", "0.01", { c })]);
  const [tp] = await place(w, [trigger(false, "tp", "62000", "61900", "0.005", { isMarket: false })]);
  const open = await h.info.openOrders({ user: user(w) });
  assert.equal(open.map((o) => o.oid), [tp.resting.oid, sl.resting.oid]);
  assert.equal(open[1], {
    coin: "BTC", side: "A", limitPx: "53100.0", sz: "0.01", oid: sl.resting.oid, timestamp: open[1]!.timestamp,
    origSz: "0.01", cloid: c, reduceOnly: true,
  });
  const fe = await h.info.frontendOpenOrders({ user: user(w) });
  assert.equal(fe[1], {
    coin: "BTC", side: "A", limitPx: "53100.0", sz: "0.01", oid: sl.resting.oid, timestamp: fe[1]!.timestamp,
    triggerCondition: "Price below 59000", isTrigger: true, triggerPx: "59000.0", children: [], isPositionTpsl: false,
    reduceOnly: true, orderType: "Stop Market", origSz: "0.01", tif: null, cloid: c,
  });
  assert.is(fe[0]!.orderType, "Take Profit Limit");
  assert.is(fe[0]!.triggerCondition, "Price above 62000");
  assert.is(fe[0]!.triggerPx, "62000.0");
  const byStatus: any = await h.info.orderStatus({ user: user(w), oid: sl.resting.oid });
  assert.is(byStatus.order.status, "open");
  assert.is(byStatus.order.order.orderType, "Stop Market");
});

test("normalTpsl: the children wait for the entry's fill, then watch the mark; one filling cancels the other", async () => {
  const w = await fundedWallet(h.sim);
  const statuses = await place(w, [
    limit(true, "59000", "0.01", "Gtc"),
    trigger(false, "sl", "58000", "52200", "0.01"),
    trigger(false, "tp", "61000", "54900", "0.01"),
  ], "normalTpsl");
  assert.ok(statuses[0].resting, JSON.stringify(statuses));
  assert.equal(statuses.slice(1), ["waitingForFill", "waitingForFill"]);
  assert.is((await h.info.openOrders({ user: user(w) })).length, 1, "children are not open orders yet");
  const [entry] = await h.info.frontendOpenOrders({ user: user(w) });
  assert.equal(entry!.children.map((c: any) => [c.orderType, c.triggerPx, c.triggerCondition]), [
    ["Stop Market", "58000.0", "Price below 58000"], ["Take Profit Market", "61000.0", "Price above 61000"],
  ]);
  h.sim.setPrice("BTC", "58900"); // the entry fills as a maker at 59000; its stop at 58000 is not crossed
  assert.is(await szi(w), "0.01");
  const open = await h.info.frontendOpenOrders({ user: user(w) });
  assert.equal(open.map((o) => o.orderType).sort(), ["Stop Market", "Take Profit Market"]);
  const [sl, tp] = [open.find((o) => o.orderType === "Stop Market")!, open.find((o) => o.orderType === "Take Profit Market")!];
  h.sim.setPrice("BTC", "57900");
  assert.is(await szi(w), "0");
  assert.is(await status(w, sl.oid), "filled");
  assert.is(await status(w, tp.oid), "siblingFilledCanceled");
});

test("normalTpsl: an entry that fills at once leaves its children waitingForTrigger; a canceled entry takes its children", async () => {
  const w = await fundedWallet(h.sim);
  const now = await place(w, [limit(true, "60100", "0.01"), trigger(false, "sl", "59000", "53100", "0.01")], "normalTpsl");
  assert.ok(now[0].filled, JSON.stringify(now));
  assert.is(now[1], "waitingForTrigger");
  const [sl] = await h.info.frontendOpenOrders({ user: user(w) });
  assert.is(sl!.triggerCondition, "Price below 59000");

  const v = await fundedWallet(h.sim);
  const c = randomCloid();
  const later = await place(v, [limit(true, "59000", "0.01", "Gtc"), trigger(false, "sl", "58000", "52200", "0.01", { c })], "normalTpsl");
  await h.exchange(v).cancel({ cancels: [{ a: BTC, o: later[0].resting.oid }] });
  assert.is(await status(v, c), "canceled");
  assert.equal(await h.info.frontendOpenOrders({ user: user(v) }), []);
});

test("a malformed normalTpsl group is refused whole", async () => {
  const w = await fundedWallet(h.sim);
  const res: any = await h.exchange(w).order({
    orders: [limit(true, "59000", "0.01", "Gtc"), trigger(false, "sl", "58000", "52200", "0.01", { r: false })],
    grouping: "normalTpsl",
  }).catch((e) => e.response);
  assert.is(res.status, "err");
  assert.match(res.response, /reduce-only/);
  assert.equal(await h.info.openOrders({ user: user(w) }), []);
});

test("reduce-only triggers never increase a position: refused when flat, canceled when the position is gone", async () => {
  const flat = await fundedWallet(h.sim);
  const [refused] = await place(flat, [trigger(false, "sl", "59000", "53100", "0.01")]);
  assert.match(refused.error, /^Reduce only order would increase position\./);

  const w = await long();
  const [st] = await place(w, [trigger(false, "sl", "59000", "53100", "0.01")]);
  await place(w, [limit(false, "59900", "0.01")]); // closes the long by hand
  h.sim.setPrice("BTC", "58900");
  assert.is(await status(w, st.resting.oid), "reduceOnlyCanceled");
  assert.is(await szi(w), "0");
});

test("positionTpsl covers the whole position when it fires and goes with the position", async () => {
  const w = await long();
  const [st] = await place(w, [trigger(false, "sl", "59000", "53100", "0")], "positionTpsl");
  assert.ok(st.resting, JSON.stringify(st));
  await place(w, [limit(true, "60100", "0.01")]); // the position grows to 0.02
  const [fe] = await h.info.frontendOpenOrders({ user: user(w) });
  assert.is(fe!.isPositionTpsl, true);
  assert.is(fe!.sz, "0.0");
  h.sim.setPrice("BTC", "58900");
  assert.is(await szi(w), "0");

  h.sim.setPrice("BTC", "60000");
  const u = await long();
  await place(u, [limit(true, "60100", "0.01")]); // 0.02
  const [fixed] = await place(u, [trigger(false, "sl", "59000", "53100", "0.005")], "positionTpsl");
  h.sim.setPrice("BTC", "58900");
  assert.is(await status(u, fixed.resting.oid), "filled");
  assert.is(await szi(u), "0.015", "a fixed-size position stop closes its own size only");

  h.sim.setPrice("BTC", "60000");
  const v = await long();
  const [gone] = await place(v, [trigger(false, "tp", "61000", "54900", "0")], "positionTpsl");
  await place(v, [limit(false, "59900", "0.01")]); // closing the position by hand cancels it at once
  assert.is(await szi(v), "0"); // any mark move settles it
  assert.is(await status(v, gone.resting.oid), "reduceOnlyCanceled");
});

test("orderUpdates reports a trigger as open, then triggered, then filled", async () => {
  const w = await long();
  const p = await Probe.open(h.sim.port);
  try {
    const from = await p.subscribe({ type: "orderUpdates", user: w.address });
    await p.nth(from);
    const [st] = await place(w, [trigger(false, "sl", "59000", "53100", "0.01")]);
    const oid = st.resting.oid;
    await p.find((m) => m.channel === "orderUpdates" && m.data.some((u: any) => u.order.oid === oid && u.status === "open"), "open", from);
    h.sim.setPrice("BTC", "58900");
    const msg = await p.find((m) => m.channel === "orderUpdates" && m.data.some((u: any) => u.order.oid === oid && u.status === "triggered"), "triggered", from);
    const seq = msg.data.filter((u: any) => u.order.oid === oid).map((u: any) => u.status);
    assert.equal(seq, ["triggered", "filled"]);
  } finally {
    p.close();
  }
});

test("an untriggered order holds no margin; one that fires without the margin for it is marginCanceled", async () => {
  const w = await fundedWallet(h.sim, 1000); // 20x: 20 000 of notional
  const [stop] = await place(w, [trigger(true, "sl", "60500", "61000", "0.3", { r: false })]); // a stop entry: 18 300
  assert.ok(stop.resting, JSON.stringify(stop));
  const [bid] = await place(w, [limit(true, "59000", "0.3", "Gtc")]); // 17 700: only fits beside a trigger that holds nothing
  assert.ok(bid.resting, JSON.stringify(bid));
  h.sim.setPrice("BTC", "60600");
  assert.is(await status(w, stop.resting.oid), "marginCanceled");
  assert.is(await szi(w), "0");
});

test("a sim file from before trigger orders opens, and its orders read as plain orders", async () => {
  const dir = tempDir("tradevault-sim-old-");
  const dbPath = join(dir.path, "old.db");
  const old = new Database(dbPath);
  old.exec(`CREATE TABLE orders (
    oid INTEGER PRIMARY KEY, user TEXT NOT NULL, coin TEXT NOT NULL, is_buy INTEGER NOT NULL,
    limit_px TEXT NOT NULL, sz TEXT NOT NULL, orig_sz TEXT NOT NULL, tif TEXT NOT NULL,
    reduce_only INTEGER NOT NULL, cloid TEXT, status TEXT NOT NULL,
    created_at INTEGER NOT NULL, status_at INTEGER NOT NULL)`);
  const owner = "0x" + "1".repeat(40);
  old.prepare("INSERT INTO orders VALUES (40000000000, ?, 'BTC', 1, '50000', '0.01', '0.01', 'Gtc', 0, NULL, 'open', 1, 1)").run(owner);
  old.close();
  const sim = await startSim({ dbPath });
  try {
    const [fe] = await sim.info.frontendOpenOrders({ user: owner as `0x${string}` });
    assert.equal([fe!.oid, fe!.isTrigger, fe!.orderType, fe!.triggerCondition, fe!.tif], [40000000000, false, "Limit", "N/A", "Gtc"]);
  } finally {
    await sim.close(true);
    dir.remove();
  }
});

test("trigger orders survive a restart on the same file and still fire", async () => {
  const dir = tempDir("tradevault-sim-triggers-");
  const dbPath = join(dir.path, "sim.db");
  try {
    const first = await startSim({ dbPath });
    const w = await fundedWallet(first.sim);
    await statusesOf(first.exchange(w).order({ orders: [limit(true, "60100", "0.01")], grouping: "na" }));
    const [st] = await statusesOf(first.exchange(w).order({ orders: [trigger(false, "sl", "59000", "53100", "0.01")], grouping: "na" }));
    await first.close(true);
    const second = await startSim({ dbPath });
    try {
      const [fe] = await second.info.frontendOpenOrders({ user: user(w) });
      assert.equal([fe!.oid, fe!.orderType, fe!.triggerCondition], [st.resting.oid, "Stop Market", "Price below 59000"]);
      second.sim.setPrice("BTC", "58900");
      const s: any = await second.info.orderStatus({ user: user(w), oid: st.resting.oid });
      assert.is(s.order.status, "filled");
    } finally {
      await second.close(true);
    }
  } finally {
    dir.remove();
  }
});

test.run();
