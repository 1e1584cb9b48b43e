// The WebSocket's `post` method: /info and /exchange bodies over the socket answered by the same
// handlers as HTTP in the venue's envelope, driven raw and through the SDK's WebSocketTransport.
import { ExchangeClient, InfoClient, WebSocketTransport } from "@nktkas/hyperliquid";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { fundedWallet, postJson, startSim, statusesOf } from "./_support.js";
import { Probe, SdkWs } from "./ws-probe.js";

test("post info: the answer POST /info gives, as {type: info, payload: {type, data}}, under the request's id", async () => {
  const h = await startSim();
  try {
    const p = await Probe.open(h.sim.port);
    p.send({ method: "post", id: 41, request: { type: "info", payload: { type: "meta" } } });
    const http = (await postJson(h.sim.url, "/info", { type: "meta" })).json;
    assert.equal(await p.nth(1), { channel: "post", data: { id: 41, response: { type: "info", payload: { type: "meta", data: http } } } });
    p.close();
  } finally {
    await h.close();
  }
});

test("post action: a refused action answers the venue's JSON error under type action; the socket stays usable", async () => {
  const h = await startSim();
  try {
    const p = await Probe.open(h.sim.port);
    const body = {
      action: { type: "cancel", cancels: [{ a: 0, o: 1 }] }, nonce: Date.now(),
      signature: { r: "0x" + "1".repeat(64), s: "0x" + "2".repeat(64), v: 27 },
    };
    const http = (await postJson(h.sim.url, "/exchange", { ...body, nonce: body.nonce + 1 })).json;
    assert.is(http.status, "err");
    p.send({ method: "post", id: 7, request: { type: "action", payload: body } });
    const answer = await p.nth(1);
    assert.equal(answer.data.id, 7);
    assert.equal(answer.data.response.type, "action");
    assert.equal(answer.data.response.payload.status, "err");
    p.send({ method: "ping" });
    assert.equal(await p.nth(2), { channel: "pong" });
    p.close();
  } finally {
    await h.close();
  }
});

test("post bodies the venue cannot parse answer on the error channel with the text sent", async () => {
  const h = await startSim();
  try {
    const p = await Probe.open(h.sim.port);
    const bad = [
      '{"method":"post","id":1,"request":{"type":"info","payload":{"type":"noSuchInfo"}}}',
      '{"method":"post","request":{"type":"info","payload":{"type":"meta"}}}',
      '{"method":"post","id":2,"request":{"type":"query","payload":{"type":"meta"}}}',
      '{"method":"post","id":3,"request":{"type":"action","payload":{"action":{"type":"order"}}}}',
    ];
    for (const [i, text] of bad.entries()) {
      p.send(text);
      assert.equal(await p.nth(i + 1), { channel: "error", data: `Error parsing JSON into valid websocket request: ${text}` });
    }
    p.close();
  } finally {
    await h.close();
  }
});

test("the SDK's InfoClient and ExchangeClient over WebSocketTransport: an order placed by post rests, and reads agree with HTTP", async () => {
  const h = await startSim();
  const transport = new WebSocketTransport({ url: `ws://127.0.0.1:${h.sim.port}/ws`, isTestnet: true, timeout: 5_000, reconnect: { WebSocket: SdkWs } });
  try {
    const wallet = await fundedWallet(h.sim);
    const user = wallet.address.toLowerCase() as `0x${string}`;
    const info = new InfoClient({ transport });
    const exchange = new ExchangeClient({ transport, wallet });
    assert.equal(await info.meta(), await h.info.meta());
    const [status] = await statusesOf(exchange.order({
      orders: [{ a: 0, b: true, p: "55000", s: "0.001", r: false, t: { limit: { tif: "Gtc" } } }], grouping: "na",
    }));
    assert.ok(status.resting, JSON.stringify(status));
    const open = await info.openOrders({ user });
    assert.equal(open.map((o) => o.oid), [status.resting.oid]);
    assert.equal(open, await h.info.openOrders({ user }));
    assert.equal(await info.clearinghouseState({ user }).then((s: any) => s.withdrawable),
      await h.info.clearinghouseState({ user }).then((s: any) => s.withdrawable));
    const res = await exchange.cancel({ cancels: [{ a: 0, o: status.resting.oid }] });
    assert.equal(res.response.data.statuses, ["success"]);
  } finally {
    await transport.close();
    await h.close();
  }
});

test.run();
