// The price stream client against a real WebSocket server speaking Hyperliquid's allMids protocol: it
// subscribes, hands each message on, and after the server drops it reconnects with backoff and
// subscribes again; its status says where it stands; a ping goes out after silence.
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { AddressInfo } from "node:net";
import pino from "pino";
import { WebSocketServer, type WebSocket } from "ws";
import { createPriceStream, wsUrlOf } from "../../daemon/exchange/price-stream.js";
import { waitUntil } from "../helpers/util.js";

async function server() {
  const wss = new WebSocketServer({ host: "127.0.0.1", port: 0, path: "/ws" });
  await new Promise<void>((r) => wss.once("listening", () => r()));
  const received: string[] = [];
  const sockets: WebSocket[] = [];
  wss.on("connection", (ws) => {
    sockets.push(ws);
    ws.on("message", (raw) => {
      const msg = JSON.parse(String(raw));
      received.push(msg.method + (msg.subscription ? `:${msg.subscription.type}` : ""));
      if (msg.method === "subscribe") {
        ws.send(JSON.stringify({ channel: "subscriptionResponse", data: msg }));
        ws.send(JSON.stringify({ channel: "allMids", data: { mids: { BTC: "60000.0", ETH: "3000.0" } } }));
      }
      if (msg.method === "ping") ws.send(JSON.stringify({ channel: "pong" }));
    });
  });
  const url = `http://127.0.0.1:${(wss.address() as AddressInfo).port}`;
  return { wss, url, received, sockets, close: () => new Promise<void>((r) => wss.close(() => r())) };
}

test("ws URL from the API URL", () => {
  assert.is(wsUrlOf("http://127.0.0.1:9000"), "ws://127.0.0.1:9000/ws");
  assert.is(wsUrlOf("https://api.hyperliquid-testnet.xyz"), "wss://api.hyperliquid-testnet.xyz/ws");
});

test("subscribes to allMids, hands on each message, and after a drop reconnects and subscribes again", async () => {
  const s = await server();
  const seen: Array<Record<string, string>> = [];
  const stream = createPriceStream({ apiUrl: s.url, onMids: (m) => seen.push(m), log: pino({ level: "silent" }), backoffMs: 50 });
  try {
    assert.is(stream.status().state, "off");
    stream.start();
    await waitUntil(() => seen.length >= 1, { what: "the first mids" });
    assert.equal(seen[0], { BTC: "60000.0", ETH: "3000.0" });
    assert.is(stream.status().state, "open");
    assert.equal(s.received, ["subscribe:allMids"]);
    s.sockets[0]!.send(JSON.stringify({ channel: "allMids", data: { mids: { BTC: "59000.0" } } }));
    await waitUntil(() => seen.length >= 2, { what: "a price update" });
    assert.equal(seen[1], { BTC: "59000.0" });

    s.sockets[0]!.terminate(); // the server drops the connection
    await waitUntil(() => stream.status().connects >= 2 && seen.length >= 3, { what: "a reconnect with a fresh subscription" });
    assert.equal(s.received, ["subscribe:allMids", "subscribe:allMids"]);
    assert.is(stream.status().state, "open");
    assert.ok(stream.status().lastMessageAgeSeconds! <= 1);
  } finally {
    await stream.stop();
    await s.close();
  }
  assert.is(stream.status().state, "off");
});

test("while the server is gone the state is down, and it comes back by itself", async () => {
  const s = await server();
  const port = Number(new URL(s.url).port);
  const stream = createPriceStream({ apiUrl: s.url, onMids: () => undefined, log: pino({ level: "silent" }), backoffMs: 50, maxBackoffMs: 200 });
  stream.start();
  try {
    await waitUntil(() => stream.status().state === "open", { what: "open" });
    for (const ws of s.sockets) ws.terminate();
    await s.close();
    await waitUntil(() => ["down", "connecting"].includes(stream.status().state) && stream.status().connects === 1, { what: "down" });
    const again = new WebSocketServer({ host: "127.0.0.1", port, path: "/ws" });
    again.on("connection", (ws) => ws.on("message", () => ws.send(JSON.stringify({ channel: "allMids", data: { mids: { BTC: "1.0" } } }))));
    try {
      await waitUntil(() => stream.status().state === "open" && stream.status().connects === 2, { what: "back up", slowMs: 10_000 });
    } finally {
      await stream.stop();
      await new Promise<void>((r) => again.close(() => r()));
    }
  } finally {
    await stream.stop();
  }
});

test("after silence a ping goes out, and a pong keeps the connection", async () => {
  const s = await server();
  const stream = createPriceStream({ apiUrl: s.url, onMids: () => undefined, log: pino({ level: "silent" }), heartbeatMs: 300 });
  try {
    stream.start();
    await waitUntil(() => s.received.includes("ping"), { what: "a ping after silence", slowMs: 5_000 });
    assert.is(stream.status().connects, 1, "the pong kept it open");
  } finally {
    await stream.stop();
    await s.close();
  }
});

test.run();
