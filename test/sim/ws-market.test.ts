// The sim's public market channels over real sockets: l2Book (with nSigFigs), bbo, candle and trades,
// each compared with what POST /info answers, sent again only when its data changed.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { F, exact } from "../../daemon/sim/num.js";
import { fundedWallet, postJson, startSim, statusesOf } from "./_support.js";
import { ack, Probe, startChannels } from "./ws-probe.js";

const withoutTime = ({ time, ...rest }: any) => rest;
/** A number as the sim writes it (whole numbers as "3000.0" once the venue's formatting is in). */
const num = (text: string) => exact(F.parse(text));

test("l2Book: ack, then the book POST /info l2Book answers; a price move sends the new book, other coins' subscribers get nothing", async () => {
  const h = await startSim();
  try {
    const p = await Probe.open(h.sim.port);
    const q = await Probe.open(h.sim.port);
    const btc = { type: "l2Book", coin: "BTC" };
    p.send({ method: "subscribe", subscription: btc });
    assert.equal(await p.nth(1), ack("subscribe", btc));
    const first = await p.nth(2);
    assert.is(first.channel, "l2Book");
    assert.equal(withoutTime(first.data), withoutTime(await h.info.l2Book({ coin: "BTC" })));
    assert.is(first.data.levels[0].length, 10);
    const qFrom = await q.subscribe({ type: "l2Book", coin: "ETH" });
    await q.nth(qFrom + 1); // the ETH snapshot
    const seen = qFrom + 1;
    h.sim.setPrice("BTC", "61000");
    const moved = await p.nth(3);
    assert.equal(withoutTime(moved.data), withoutTime(await h.info.l2Book({ coin: "BTC" })));
    assert.is.not(moved.data.levels[1][0].px, first.data.levels[1][0].px);
    assert.equal(await q.since(seen), []);
    h.sim.setPrice("ETH", "3000"); // unchanged: no message anywhere
    assert.equal(await p.since(3), []);
    p.close();
    q.close();
  } finally {
    await h.close();
  }
});

test("l2Book with nSigFigs: the snapshot is POST /info's answer for the same options, and its prices have that many figures", async () => {
  const h = await startSim();
  try {
    const p = await Probe.open(h.sim.port);
    const sub = { type: "l2Book", coin: "BTC", nSigFigs: 2, mantissa: null };
    const from = await p.subscribe(sub);
    assert.equal(await p.nth(from), ack("subscribe", sub));
    const book = (await p.nth(from + 1)).data;
    assert.equal(withoutTime(book), withoutTime(await h.info.l2Book({ coin: "BTC", nSigFigs: 2 })));
    for (const side of book.levels) {
      for (const l of side) assert.ok(/^[1-9]\d?0*(\.0)?$/.test(l.px), `${l.px} has more than 2 significant figures`);
    }
    p.close();
  } finally {
    await h.close();
  }
});

test("l2Book, bbo, trades and candle refuse an unknown coin or bad options as the venue does, on the error channel", async () => {
  const h = await startSim();
  try {
    const p = await Probe.open(h.sim.port);
    const bad = [
      { type: "l2Book", coin: "DOGE" },
      { type: "l2Book", coin: "BTC", nSigFigs: 7 },
      { type: "l2Book", coin: "BTC", nSigFigs: 4, mantissa: 2 },
      { type: "bbo", coin: "XRP" },
      { type: "trades" },
      { type: "candle", coin: "BTC", interval: "2m" },
    ];
    for (const [i, sub] of bad.entries()) {
      p.send({ method: "subscribe", subscription: sub });
      assert.equal(await p.nth(i + 1), { channel: "error", data: `Invalid subscription ${JSON.stringify(sub)}` });
    }
    p.close();
  } finally {
    await h.close();
  }
});

test("bbo: the best bid and ask of POST /info l2Book, again after a move", async () => {
  const h = await startSim();
  try {
    const p = await Probe.open(h.sim.port);
    const from = await p.subscribe({ type: "bbo", coin: "SOL" });
    const first = await p.nth(from + 1);
    const book = await h.info.l2Book({ coin: "SOL" });
    assert.equal(first, { channel: "bbo", data: { coin: "SOL", time: first.data.time, bbo: [book!.levels[0][0], book!.levels[1][0]] } });
    h.sim.setPrice("SOL", "155");
    const moved = await p.nth(from + 2);
    const after = await h.info.l2Book({ coin: "SOL" });
    assert.equal(moved.data.bbo, [after!.levels[0][0], after!.levels[1][0]]);
    p.close();
  } finally {
    await h.close();
  }
});

test("candle: the open candle at the mark, then high, low and close follow the moves; the next bucket opens at the last close", async () => {
  let now = Date.UTC(2026, 0, 5, 10, 0, 30);
  const h = await startSim({ clock: () => now });
  try {
    const p = await Probe.open(h.sim.port);
    const from = await p.subscribe({ type: "candle", coin: "ETH", interval: "1m" });
    const t = Date.UTC(2026, 0, 5, 10, 0, 0);
    const open = { t, T: t + 59_999, s: "ETH", i: "1m", o: num("3000"), c: num("3000"), h: num("3000"), l: num("3000"), v: num("0"), n: 0 };
    assert.equal(await p.nth(from + 1), { channel: "candle", data: open });
    h.sim.setPrice("ETH", "3050");
    h.sim.setPrice("ETH", "2990.5");
    assert.equal((await p.nth(from + 3)).data, { ...open, c: "2990.5", h: num("3050"), l: "2990.5" });
    now += 60_000;
    h.sim.setPrice("ETH", "2995");
    assert.equal((await p.nth(from + 4)).data, {
      t: t + 60_000, T: t + 119_999, s: "ETH", i: "1m", o: "2990.5", c: num("2995"), h: num("2995"), l: "2990.5", v: num("0"), n: 0,
    });
    p.close();
  } finally {
    await h.close();
  }
});

test("trades and candle volume from a real order through POST /exchange", async () => {
  const h = await startSim();
  try {
    const wallet = await fundedWallet(h.sim);
    const p = await Probe.open(h.sim.port);
    await p.subscribe({ type: "trades", coin: "BTC" });
    await p.subscribe({ type: "candle", coin: "BTC", interval: "5m" });
    const [status] = await statusesOf(h.exchange(wallet).order({
      orders: [{ a: 0, b: true, p: "61000", s: "0.01", r: false, t: { limit: { tif: "Ioc" } } }], grouping: "na",
    }));
    assert.ok(status.filled, JSON.stringify(status));
    const trades = await p.find((m) => m.channel === "trades", "a trades message");
    assert.is(trades.data[0].coin, "BTC");
    assert.is(trades.data.reduce((n: number, t: any) => n + Number(t.sz), 0).toFixed(5), "0.01000");
    assert.is(trades.data[0].side, "B");
    assert.ok(trades.data[0].users.includes(wallet.address.toLowerCase()));
    const candle = await p.find((m) => m.channel === "candle" && m.data.n > 0, "a candle with the trade");
    assert.is(candle.data.v, num("0.01"));
    p.close();
  } finally {
    await h.close();
  }
});

test("trades (channel level): engine trade events reach that coin's subscribers only, and a new subscriber gets the recent ones first", async () => {
  const c = await startChannels();
  try {
    const btc = await c.open();
    const eth = await c.open();
    await btc.subscribe({ type: "trades", coin: "BTC" });
    const ethFrom = await eth.subscribe({ type: "trades", coin: "ETH" });
    const trade = { coin: "BTC", side: "A" as const, px: "60000", sz: "0.5", time: Date.now(), tid: 7, hash: "0x00", users: ["0xa", "0xb"] };
    c.ctx.events.emit({ kind: "trades", coin: "BTC", trades: [trade] });
    assert.equal(await btc.find((m) => m.channel === "trades", "the trade"), { channel: "trades", data: [trade] });
    assert.equal(await eth.since(ethFrom), []);
    const late = await c.open();
    const lateFrom = await late.subscribe({ type: "trades", coin: "BTC" });
    assert.equal(await late.nth(lateFrom + 1), { channel: "trades", data: [trade] });
    btc.close();
    eth.close();
    late.close();
  } finally {
    await c.close();
  }
});

test("l2Book (channel level): a book event resends only books that changed", async () => {
  const c = await startChannels();
  try {
    const p = await c.open();
    const from = await p.subscribe({ type: "l2Book", coin: "BTC" });
    await p.nth(from + 1);
    c.ctx.events.emit({ kind: "book", coin: "BTC" }); // nothing changed since the snapshot was sent
    c.ctx.events.emit({ kind: "book", coin: "BTC" });
    assert.equal(await p.since(from + 1), []);
    c.ctx.repo.setMark("BTC", 59_000n * 10n ** 18n, Date.now());
    c.ctx.events.emit({ kind: "book", coin: "BTC" });
    const moved = await p.find((m) => m.channel === "l2Book" && m.data.levels[0][0].px.startsWith("589"), "the moved book", from + 1);
    assert.ok(moved);
    p.close();
  } finally {
    await c.close();
  }
});

test("POST /sim/price moves reach l2Book subscribers too (the control endpoint goes through the same publisher)", async () => {
  const h = await startSim();
  try {
    const p = await Probe.open(h.sim.port);
    const from = await p.subscribe({ type: "l2Book", coin: "SOL" });
    await p.nth(from + 1);
    assert.is((await postJson(h.sim.url, "/sim/price", { symbol: "SOL", price: "140" })).status, 200);
    const moved = await p.nth(from + 2);
    assert.equal(withoutTime(moved.data), withoutTime(await h.info.l2Book({ coin: "SOL" })));
    p.close();
  } finally {
    await h.close();
  }
});

test.run();
