// The engine's events (sim-events.ts) as the WebSocket channels receive them: published after the
// transaction commits, one message per user and channel per action, in the venue's wire shapes.
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { Wallet } from "ethers";
import type { SimEvent } from "../../daemon/sim/index.js";
import type { EngineConfig } from "../../daemon/sim/engine/context.js";
import { createEngineCtx } from "../../daemon/sim/engine/context.js";
import { DEFAULT_MARKETS, MarketList } from "../../daemon/sim/markets.js";
import { SimEvents } from "../../daemon/sim/sim-events.js";
import { openDb } from "../../daemon/sim/store/db.js";
import { SimRepo } from "../../daemon/sim/store/repo.js";
import { fundedWallet, startSim, statusesOf, type SimHarness } from "./_support.js";

let h: SimHarness;
let w: Wallet;
let user: string;
const seen: SimEvent[] = [];

test.before(async () => {
  h = await startSim();
  w = await fundedWallet(h.sim, 10_000);
  user = w.address.toLowerCase();
  h.sim.onEvent((e) => seen.push(e));
});
test.after(async () => {
  await h.close();
});
test.before.each(() => {
  seen.length = 0;
});

const gtc = (b: boolean, p: string, s: string) => ({ a: 0, b, p, s, r: false, t: { limit: { tif: "Gtc" as const } } });
const kinds = () => seen.map((e) => e.kind);

test("a resting order: one orderUpdates 'open' and a book event, nothing else", async () => {
  const [st] = await statusesOf(h.exchange(w).order({ orders: [gtc(true, "59000", "0.01")], grouping: "na" }));
  assert.equal(kinds(), ["orderUpdates", "book"]);
  const [upd] = seen as Extract<SimEvent, { kind: "orderUpdates" }>[];
  assert.is(upd.user, user);
  assert.equal(upd.updates, [{
    order: { coin: "BTC", side: "B", limitPx: "59000.0", sz: "0.01", oid: st.resting.oid, timestamp: (upd.updates[0].order as { timestamp: number }).timestamp, origSz: "0.01" },
    status: "open",
    statusTimestamp: upd.updates[0].statusTimestamp,
  }]);
  assert.equal(seen[1], { kind: "book", coin: "BTC" });
  await h.exchange(w).cancel({ cancels: [{ a: 0, o: st.resting.oid }] });
  const statuses = seen.flatMap((e) => (e.kind === "orderUpdates" ? e.updates.map((u) => u.status) : []));
  assert.equal(statuses, ["open", "canceled"]);
});

test("a taker fill: the user's fill, a public trade against the sim, and the order 'filled' once", async () => {
  const [st] = await statusesOf(h.exchange(w).order({ orders: [{ ...gtc(true, "61000", "0.2"), t: { limit: { tif: "Ioc" } } }], grouping: "na" }));
  assert.ok(st.filled);
  const fills = seen.filter((e) => e.kind === "fills");
  assert.is(fills.length, 1, "one fills message for the action");
  const [fill] = (fills[0] as Extract<SimEvent, { kind: "fills" }>).fills;
  const [recorded] = await h.info.userFills({ user: user as `0x${string}` });
  assert.equal(fill, recorded, "the same shape as userFills");
  const trades = seen.find((e) => e.kind === "trades") as Extract<SimEvent, { kind: "trades" }>;
  assert.equal(trades.trades[0], {
    coin: "BTC", side: "B", px: fill.px, sz: fill.sz, time: fill.time, hash: fill.hash, tid: fill.tid,
    users: [user, "0x0000000000000000000000000000000000000000"],
  });
  const updates = seen.flatMap((e) => (e.kind === "orderUpdates" ? e.updates.map((u) => u.status) : []));
  assert.equal(updates, ["filled"], "a taker is never announced as open");
});

test("a mark that crosses a resting order: maker fill, filled update, trade on the taker's side, book", async () => {
  const [st] = await statusesOf(h.exchange(w).order({ orders: [gtc(false, "60500", "0.01")], grouping: "na" }));
  seen.length = 0;
  h.sim.setPrice("BTC", "60600");
  assert.ok(kinds().includes("fills"));
  const trade = (seen.find((e) => e.kind === "trades") as Extract<SimEvent, { kind: "trades" }>).trades[0];
  // The user sold as maker: the aggressor bought.
  assert.equal([trade.side, trade.users], ["B", ["0x0000000000000000000000000000000000000000", user]]);
  const upd = (seen.find((e) => e.kind === "orderUpdates") as Extract<SimEvent, { kind: "orderUpdates" }>).updates;
  assert.equal(upd.map((u) => [u.status, (u.order as { oid: number }).oid]), [["filled", st.resting.oid]]);
  assert.equal(seen.filter((e) => e.kind === "book"), [{ kind: "book", coin: "BTC" }]);
  assert.is(kinds().at(-1), "book", "the book event comes after the order changes");
});

test("a rejected order is announced with its rejection status", async () => {
  await statusesOf(h.exchange(w).order({ orders: [gtc(true, "59000.5", "0.01")], grouping: "na" }));
  const upd = seen.flatMap((e) => (e.kind === "orderUpdates" ? e.updates.map((u) => u.status) : []));
  assert.equal(upd, ["tickRejected"]);
  assert.not.ok(kinds().includes("book"), "a rejected order never touched the book");
});

test("a liquidation: liquidatedCanceled with nonUserCancel, the liquidation fill and userEvent", async () => {
  const poor = await fundedWallet(h.sim, 100);
  const addr = poor.address.toLowerCase();
  h.sim.setPrice("BTC", "60000");
  await statusesOf(h.exchange(poor).order({ orders: [{ ...gtc(true, "61000", "0.03"), t: { limit: { tif: "Ioc" } } }], grouping: "na" }));
  await statusesOf(h.exchange(poor).order({ orders: [gtc(true, "50000", "0.001")], grouping: "na" }));
  seen.length = 0;
  assert.equal(h.sim.setPrice("BTC", "57000").liquidated, [addr]);
  const mine = seen.filter((e) => "user" in e && e.user === addr);
  const events = mine.filter((e) => e.kind === "userEvent").map((e) => Object.keys((e as { event: object }).event)[0]);
  assert.equal(events.sort(), ["liquidation", "nonUserCancel"]);
  const statuses = mine.flatMap((e) => (e.kind === "orderUpdates" ? e.updates.map((u) => u.status) : []));
  assert.equal(statuses, ["liquidatedCanceled", "filled"]);
  const fill = (mine.find((e) => e.kind === "fills") as Extract<SimEvent, { kind: "fills" }>).fills[0];
  assert.equal(fill.liquidation, { liquidatedUser: addr, markPx: "57000.0", method: "market" });
});

test("ctx.tx publishes after commit, merged per user, and nothing after a rollback", () => {
  const events = new SimEvents((err) => { throw err; });
  const got: SimEvent[] = [];
  events.on((e) => got.push(e));
  const ctx = createEngineCtx(new SimRepo(openDb(":memory:")), new MarketList(DEFAULT_MARKETS), {} as EngineConfig, Date.now, events);
  const fill = (tid: number) => ({ coin: "BTC", oid: 1, tid, time: 1 });
  assert.throws(() => ctx.tx(() => {
    ctx.emit({ kind: "book", coin: "BTC" });
    throw new Error("boom");
  }));
  assert.equal(got, [], "rolled back: nothing published");
  ctx.tx(() => {
    ctx.emit({ kind: "book", coin: "BTC" });
    ctx.emit({ kind: "fills", user: "0xa", fills: [fill(1)] });
    assert.equal(got, [], "nothing before the commit");
    ctx.tx(() => ctx.emit({ kind: "fills", user: "0xa", fills: [fill(2)] }));
    ctx.emit({ kind: "book", coin: "BTC" });
  });
  assert.equal(got, [{ kind: "fills", user: "0xa", fills: [fill(1), fill(2)] }, { kind: "book", coin: "BTC" }]);
});

test("a listener that throws is reported, and the others still hear the event", () => {
  const reported: unknown[] = [];
  const events = new SimEvents((err) => reported.push(err));
  const got: SimEvent[] = [];
  events.on(() => {
    throw new Error("listener bug");
  });
  events.on((e) => got.push(e));
  events.emit({ kind: "book", coin: "BTC" });
  assert.equal(got, [{ kind: "book", coin: "BTC" }]);
  assert.is((reported[0] as Error).message, "listener bug");
});

test.run();
