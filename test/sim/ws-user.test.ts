// The sim's user channels over real sockets: orderUpdates, userFills (isSnapshot first), userEvents
// (channel "user") and notification, driven by real orders through POST /exchange, and, at channel
// level, by engine events the test emits; plus the venue's limit of distinct users per address.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { fundedWallet, startSim, statusesOf } from "./_support.js";
import { ack, Probe, startChannels } from "./ws-probe.js";

const A = "0x" + "a".repeat(40);
const B = "0x" + "b".repeat(40);

test("orderUpdates: a resting order through POST /exchange arrives as open, its cancel as canceled", async () => {
  const h = await startSim();
  try {
    const wallet = await fundedWallet(h.sim);
    const user = wallet.address.toLowerCase();
    const p = await Probe.open(h.sim.port);
    const from = await p.subscribe({ type: "orderUpdates", user: wallet.address });
    assert.equal(await p.nth(from), ack("subscribe", { type: "orderUpdates", user: wallet.address }));
    const [status] = await statusesOf(h.exchange(wallet).order({
      orders: [{ a: 1, b: true, p: "2900", s: "0.01", r: false, t: { limit: { tif: "Gtc" } } }], grouping: "na",
    }));
    const oid = status.resting.oid;
    const open = await p.find((m) => m.channel === "orderUpdates", "the open update", from);
    assert.equal(open.data.map((u: any) => [u.order.oid, u.order.coin, u.order.side, Number(u.order.limitPx), u.status]), [[oid, "ETH", "B", 2900, "open"]]);
    await h.exchange(wallet).cancel({ cancels: [{ a: 1, o: oid }] });
    const canceled = await p.find((m) => m.channel === "orderUpdates" && m.data[0].status === "canceled", "the canceled update", from);
    assert.is(canceled.data[0].order.oid, oid);
    assert.equal(await h.info.openOrders({ user }), []);
    p.close();
  } finally {
    await h.close();
  }
});

test("userFills and userEvents: a taker fill through POST /exchange arrives as POST /info userFills reports it", async () => {
  const h = await startSim();
  try {
    const wallet = await fundedWallet(h.sim);
    const user = wallet.address.toLowerCase();
    const p = await Probe.open(h.sim.port);
    const fillsFrom = await p.subscribe({ type: "userFills", user });
    assert.equal(await p.nth(fillsFrom + 1), { channel: "userFills", data: { isSnapshot: true, user, fills: [] } });
    await p.subscribe({ type: "userEvents", user });
    await statusesOf(h.exchange(wallet).order({
      orders: [{ a: 2, b: false, p: "140", s: "1", r: false, t: { limit: { tif: "Ioc" } } }], grouping: "na",
    }));
    const live = await p.find((m) => m.channel === "userFills" && !m.data.isSnapshot, "the live userFills", fillsFrom + 1);
    const expected = await h.info.userFills({ user });
    assert.equal(live.data, { user, fills: [...expected].reverse() });
    const ev = await p.find((m) => m.channel === "user", "the userEvents fills");
    assert.equal(ev.data, { fills: live.data.fills });
    p.close();
  } finally {
    await h.close();
  }
});

test("userFills: the first message is the user's recent fills with isSnapshot true, as POST /info userFills lists them", async () => {
  const h = await startSim();
  try {
    const wallet = await fundedWallet(h.sim);
    const user = wallet.address.toLowerCase();
    await statusesOf(h.exchange(wallet).order({
      orders: [{ a: 0, b: true, p: "61000", s: "0.001", r: false, t: { limit: { tif: "Ioc" } } }], grouping: "na",
    }));
    const fills = await h.info.userFills({ user });
    assert.is(fills.length, 1);
    const p = await Probe.open(h.sim.port);
    const from = await p.subscribe({ type: "userFills", user: wallet.address }); // checksummed: same user
    assert.equal(await p.nth(from + 1), { channel: "userFills", data: { isSnapshot: true, user, fills } });
    p.close();
  } finally {
    await h.close();
  }
});

test("user channels (channel level): each engine event reaches its own user's subscribers, on the venue's channel names", async () => {
  const c = await startChannels();
  try {
    const a = await c.open();
    const b = await c.open();
    for (const type of ["orderUpdates", "userFills", "userEvents", "notification"]) {
      await a.subscribe({ type, user: A.toUpperCase().replace("0X", "0x") });
      await b.subscribe({ type, user: B });
    }
    const bFrom = b.messages.length;
    const aFrom = a.messages.length;
    const fill = { coin: "BTC", oid: 1, tid: 2, time: 3, px: "60000", sz: "0.1" };
    const update = { order: { coin: "BTC", oid: 1 }, status: "filled", statusTimestamp: 3 };
    c.ctx.events.emit({ kind: "orderUpdates", user: A, updates: [update] });
    c.ctx.events.emit({ kind: "fills", user: A, fills: [fill] });
    c.ctx.events.emit({ kind: "userEvent", user: A, event: { funding: { coin: "BTC", usdc: "-0.1" } } });
    c.ctx.events.emit({ kind: "notification", user: A, notification: "Liquidated" });
    assert.equal(await a.since(aFrom), [
      { channel: "orderUpdates", data: [update] },
      { channel: "userFills", data: { user: A, fills: [fill] } },
      { channel: "user", data: { fills: [fill] } },
      { channel: "user", data: { funding: { coin: "BTC", usdc: "-0.1" } } },
      { channel: "notification", data: { notification: "Liquidated" } },
    ]);
    assert.equal(await b.since(bFrom), []);
    a.close();
    b.close();
  } finally {
    await c.close();
  }
});

test("distinct users per address are limited (the venue's 10, here 2): a third user is refused, more channels of a followed user are not", async () => {
  const c = await startChannels({ maxUsersPerIp: 2 });
  try {
    const p = await c.open();
    const q = await c.open();
    await p.subscribe({ type: "orderUpdates", user: A });
    await q.subscribe({ type: "userFills", user: B });
    const C = "0x" + "c".repeat(40);
    const refused = await p.subscribe({ type: "notification", user: C });
    assert.equal(await p.nth(refused), { channel: "error", data: "Cannot track more than 2 total users." });
    const same = await p.subscribe({ type: "userEvents", user: B.toUpperCase().replace("0X", "0x") });
    assert.equal((await p.nth(same)).channel, "subscriptionResponse");
    assert.equal((await p.nth(await p.subscribe({ type: "allMids" }))).channel, "subscriptionResponse");
    // Unsubscribing every channel of B frees its place, across both sockets.
    q.send({ method: "unsubscribe", subscription: { type: "userFills", user: B } });
    p.send({ method: "unsubscribe", subscription: { type: "userEvents", user: B.toUpperCase().replace("0X", "0x") } });
    await q.sync();
    await p.sync();
    assert.equal((await p.nth(await p.subscribe({ type: "notification", user: C }))).channel, "subscriptionResponse");
    p.close();
    q.close();
  } finally {
    await c.close();
  }
});

test("a bad user address is an invalid subscription", async () => {
  const c = await startChannels();
  try {
    const p = await c.open();
    const sub = { type: "userFills", user: "0x1234" };
    assert.equal(await p.nth(await p.subscribe(sub)), { channel: "error", data: `Invalid subscription ${JSON.stringify(sub)}` });
    p.close();
  } finally {
    await c.close();
  }
});

test("a channel that throws (here: the store is gone) answers an error and the socket and server keep working", async () => {
  const c = await startChannels();
  try {
    const p = await c.open();
    c.ctx.repo.db.close();
    const at = await p.subscribe({ type: "userFills", user: A });
    assert.equal(await p.nth(at), { channel: "error", data: "Internal server error" });
    assert.equal(await p.since(at), []); // ping still answered
    const q = await c.open();
    assert.equal(await q.nth(await q.subscribe({ type: "orderUpdates", user: B })), ack("subscribe", { type: "orderUpdates", user: B }));
    p.close();
    q.close();
  } finally {
    await c.close();
  }
});

test.run();
