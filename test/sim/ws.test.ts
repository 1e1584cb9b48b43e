// The sim's WebSocket at /ws over real sockets: Hyperliquid's subscribe/ack/data protocol for allMids,
// one message per price batch, unsubscribe, ping, the error channel, per-IP limits, stop() with open
// sockets, and the SDK's own WebSocketTransport + SubscriptionClient against it.
import { SubscriptionClient, WebSocketTransport } from "@nktkas/hyperliquid";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { waitUntil, within } from "../helpers/util.js";
import { postJson, startSim, type SimHarness } from "./_support.js";
import { ack, Probe as RawProbe, SdkWs } from "./ws-probe.js";

const Probe = { open: (h: SimHarness, path?: string) => RawProbe.open(h.sim.port, path) };
type Probe = RawProbe;

const ALL_MIDS = { type: "allMids" };

test("subscribe allMids: ack, the current mids at once, and a new message when POST /sim/price moves one", async () => {
  const h = await startSim();
  try {
    const p = await Probe.open(h);
    p.send({ method: "subscribe", subscription: ALL_MIDS });
    assert.equal(await p.nth(1), ack("subscribe", ALL_MIDS));
    assert.equal(await p.nth(2), { channel: "allMids", data: { mids: await h.info.allMids() } });
    assert.is(p.messages[1].data.mids.BTC, "60000.0");
    assert.is((await postJson(h.sim.url, "/sim/price", { symbol: "BTC", price: "61234.50" })).status, 200);
    const moved = await p.nth(3);
    assert.is(moved.channel, "allMids");
    assert.is(moved.data.mids.BTC, "61234.5"); // formatted as /info allMids formats it
    assert.equal(moved.data.mids, await h.info.allMids());
    p.close();
  } finally {
    await h.close();
  }
});

test("one allMids message per price batch: tick(3) sends one, a setPrice that changes nothing sends none", async () => {
  const h = await startSim({ priceFeed: { kind: "random-walk", seed: 7, intervalMs: 0 } });
  try {
    const p = await Probe.open(h);
    p.send({ method: "subscribe", subscription: ALL_MIDS });
    const first = await p.nth(2);
    h.sim.tick(3);
    const afterTick = await h.info.allMids();
    assert.is.not(afterTick.BTC, first.data.mids.BTC);
    h.sim.setPrice("ETH", afterTick.ETH); // same price: nothing moved
    h.sim.setPrice("SOL", "151.25");
    const sent = [...p.messages.slice(2), ...(await p.sync())].filter((m) => m.channel === "allMids");
    assert.is(sent.length, 2, JSON.stringify(sent));
    assert.equal(sent[0].data.mids, afterTick);
    assert.equal(sent[1].data.mids, { ...afterTick, SOL: "151.25" });
    p.close();
  } finally {
    await h.close();
  }
});

test("unsubscribe: ack with method unsubscribe, then no more allMids; a second one is refused", async () => {
  const h = await startSim();
  try {
    const p = await Probe.open(h);
    p.send({ method: "subscribe", subscription: ALL_MIDS });
    await p.nth(2);
    p.send({ method: "unsubscribe", subscription: ALL_MIDS });
    assert.equal(await p.nth(3), ack("unsubscribe", ALL_MIDS));
    h.sim.setPrice("BTC", "59000");
    assert.equal(await p.sync(), []);
    p.send({ method: "unsubscribe", subscription: ALL_MIDS });
    assert.equal(await p.nth(5), { channel: "error", data: 'Already unsubscribed: {"type":"allMids"}' });
    p.close();
  } finally {
    await h.close();
  }
});

test("ping answers pong", async () => {
  const h = await startSim();
  try {
    const p = await Probe.open(h);
    p.send({ method: "ping" });
    assert.equal(await p.nth(1), { channel: "pong" });
    p.close();
  } finally {
    await h.close();
  }
});

test("unknown types, bad messages, bad fields and duplicates answer on the error channel; the socket stays open", async () => {
  const h = await startSim();
  try {
    const p = await Probe.open(h);
    const unknown = '{"method":"subscribe","subscription":{"type":"liquidations","coin":"BTC"}}';
    p.send(unknown);
    assert.equal(await p.nth(1), { channel: "error", data: `Error parsing JSON into valid websocket request: ${unknown}` });
    p.send("not json");
    assert.equal(await p.nth(2), { channel: "error", data: "Error parsing JSON into valid websocket request: not json" });
    p.send({ method: "subscribe", subscription: { type: "allMids", dex: "xyz" } });
    assert.equal(await p.nth(3), { channel: "error", data: 'Invalid subscription {"type":"allMids","dex":"xyz"}' });
    p.send({ method: "subscribe", subscription: ALL_MIDS });
    await p.nth(5);
    p.send({ method: "subscribe", subscription: ALL_MIDS });
    assert.equal(await p.nth(6), { channel: "error", data: 'Already subscribed: {"type":"allMids"}' });
    assert.equal(await p.sync(), []);
    assert.is(p.closeCode, undefined);
    p.close();
  } finally {
    await h.close();
  }
});

test("per-IP limits: a connection past the limit gets an error and is closed; subscriptions count across sockets", async () => {
  const h = await startSim({ ws: { maxConnectionsPerIp: 2, maxSubscriptionsPerIp: 1 } });
  try {
    const a = await Probe.open(h);
    const b = await Probe.open(h);
    const c = await Probe.open(h);
    assert.equal(await c.nth(1), { channel: "error", data: "Cannot open more than 2 websocket connections." });
    assert.is(await c.closed(), 1008);
    a.send({ method: "subscribe", subscription: ALL_MIDS });
    await a.nth(2);
    b.send({ method: "subscribe", subscription: ALL_MIDS });
    assert.equal(await b.nth(1), { channel: "error", data: "Cannot subscribe to more than 1 channels." });
    a.socket.close();
    await a.closed();
    // Closed sockets give their places back.
    const d = await waitUntil(async (): Promise<Probe | undefined> => {
      const probe = await Probe.open(h);
      probe.send({ method: "ping" });
      if ((await probe.nth(1)).channel === "pong") return probe;
      probe.close();
      return undefined;
    }, { what: "a connection accepted again" }) as Probe;
    d.send({ method: "subscribe", subscription: ALL_MIDS });
    assert.equal(await d.nth(2), ack("subscribe", ALL_MIDS));
    b.close();
    d.close();
  } finally {
    await h.close();
  }
});

test("only /ws upgrades: another path is refused", async () => {
  const h = await startSim();
  try {
    const err = await Probe.open(h, "/info").then(() => undefined, (e: Error) => e);
    assert.ok(err, "an upgrade on /info was accepted");
    assert.match(err!.message, /404/);
  } finally {
    await h.close();
  }
});

test("stop() with open sockets finishes and closes them with 1001 (going away)", async () => {
  const h = await startSim();
  const a = await Probe.open(h);
  const b = await Probe.open(h);
  a.send({ method: "subscribe", subscription: ALL_MIDS });
  await a.nth(2);
  await within(h.close(), 5_000, "stop() with open sockets");
  assert.is(await a.closed(), 1001);
  assert.is(await b.closed(), 1001);
});

test("the SDK's WebSocketTransport + SubscriptionClient.allMids receive the sim's mids", async () => {
  const h = await startSim();
  const transport = new WebSocketTransport({
    url: `ws://127.0.0.1:${h.sim.port}/ws`, isTestnet: true, timeout: 5_000, reconnect: { WebSocket: SdkWs },
  });
  try {
    const got: Record<string, string>[] = [];
    const sub = await new SubscriptionClient({ transport }).allMids((e) => got.push(e.mids));
    await waitUntil(() => got.length >= 1, { what: "the first allMids" });
    assert.equal(got[0], await h.info.allMids());
    h.sim.setPrice("ETH", "3100.5");
    await waitUntil(() => got.some((m) => m.ETH === "3100.5"), { what: "the moved ETH mid" });
    await sub.unsubscribe();
  } finally {
    await transport.close();
    await h.close();
  }
});

test.run();
