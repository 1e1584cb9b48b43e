// The sim's WebSocket at /ws, speaking Hyperliquid's protocol: subscribe/unsubscribe acks on
// `subscriptionResponse`, data on the channel named by the subscription type, `ping` -> `pong`, and
// problems on the `error` channel without closing the socket. What a subscription type streams lives
// in a registry (type -> Channel) so new types plug in without touching the protocol.
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocket, WebSocketServer } from "ws";
import type { SimLogger } from "./types.js";

export type Subscription = { type: string } & Record<string, unknown>;

/** One subscription type. */
export interface Channel {
  /** The venue's channel name for the data messages when it differs from the type (userEvents -> "user"). */
  channel?: string;
  /** Whether the subscription's other fields are valid for this type. */
  accepts(sub: Subscription): boolean;
  /** Data of the message sent right after the ack; undefined sends none. */
  snapshot?(sub: Subscription): unknown;
}

export interface WsLimits {
  /** Open sockets per remote address (the venue allows 10). */
  maxConnectionsPerIp: number;
  /** Subscriptions per remote address across its sockets (the venue allows 1000). */
  maxSubscriptionsPerIp: number;
}

export const DEFAULT_WS_LIMITS: WsLimits = { maxConnectionsPerIp: 10, maxSubscriptionsPerIp: 1000 };

// A closing handshake normally takes one round trip; a client that never answers must not hold stop().
const CLOSE_GRACE_MS = 1000;
const MAX_MESSAGE_BYTES = 64 * 1024;

interface Client {
  socket: WebSocket;
  ip: string;
  /** Canonical key -> the subscription as the client sent it. */
  subs: Map<string, Subscription>;
}

type Request =
  | { method: "ping" }
  | { method: "subscribe" | "unsubscribe"; subscription: Subscription };

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function parseRequest(text: string): Request | undefined {
  let msg: unknown;
  try {
    msg = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObject(msg)) return undefined;
  if (msg.method === "ping") return { method: "ping" };
  if (msg.method !== "subscribe" && msg.method !== "unsubscribe") return undefined;
  const sub = msg.subscription;
  if (!isObject(sub) || typeof sub.type !== "string") return undefined;
  return { method: msg.method, subscription: sub as Subscription };
}

/** Same subscription, whatever the key order (the venue compares parsed values, not text). */
function subscriptionKey(sub: Subscription): string {
  return JSON.stringify(Object.fromEntries(Object.entries(sub).sort(([a], [b]) => (a < b ? -1 : 1))));
}

function refuseUpgrade(socket: Duplex, status: string): void {
  socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}

export class SimWsServer {
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });
  private readonly clients = new Set<Client>();
  private closing = false;

  constructor(
    private readonly channels: ReadonlyMap<string, Channel>,
    private readonly limits: WsLimits,
    private readonly logger: SimLogger,
  ) {}

  /** Listener for the HTTP server's `upgrade` event: /ws becomes a socket, anything else is refused. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const path = new URL(req.url ?? "/", "http://sim").pathname;
    if (path !== "/ws") return refuseUpgrade(socket, "404 Not Found");
    if (this.closing) return refuseUpgrade(socket, "503 Service Unavailable");
    this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws, req.socket.remoteAddress ?? ""));
  }

  /** Sends `dataFor(sub)` to every subscription of `type` (undefined skips that subscription). */
  publish(type: string, dataFor: (sub: Subscription) => unknown): void {
    const channel = this.channels.get(type)?.channel ?? type;
    for (const client of this.clients) {
      for (const sub of client.subs.values()) {
        if (sub.type !== type) continue;
        const data = dataFor(sub);
        if (data !== undefined) this.send(client, { channel, data });
      }
    }
  }

  /** Closes every socket with 1001 (going away); sockets that do not answer in time are cut. */
  async close(): Promise<void> {
    this.closing = true;
    const open = [...this.clients].map((c) => c.socket);
    const closed = open.map((ws) => new Promise<void>((resolve) => {
      if (ws.readyState === WebSocket.CLOSED) return resolve();
      ws.once("close", () => resolve());
      ws.close(1001, "sim stopping");
    }));
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_GRACE_MS)));
    await Promise.race([Promise.all(closed), grace]);
    clearTimeout(timer);
    for (const ws of open) ws.terminate();
    this.clients.clear();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }

  private accept(ws: WebSocket, ip: string): void {
    const client: Client = { socket: ws, ip, subs: new Map() };
    ws.on("error", (err) => this.logger.warn({ err, ip }, "sim websocket error"));
    if (this.connectionsOf(ip) >= this.limits.maxConnectionsPerIp) {
      this.error(client, `Cannot open more than ${this.limits.maxConnectionsPerIp} websocket connections.`);
      ws.close(1008, "too many connections");
      return;
    }
    this.clients.add(client);
    ws.on("close", () => this.clients.delete(client));
    ws.on("message", (data, isBinary) => {
      if (!isBinary) this.onMessage(client, data.toString());
    });
  }

  private onMessage(client: Client, text: string): void {
    const req = parseRequest(text);
    // The venue parses the subscription as a tagged union: an unknown type fails like bad JSON.
    if (!req || (req.method !== "ping" && !this.channels.has(req.subscription.type))) {
      return this.error(client, `Error parsing JSON into valid websocket request: ${text}`);
    }
    if (req.method === "ping") return this.send(client, { channel: "pong" });
    const sub = req.subscription;
    if (!this.channels.get(sub.type)!.accepts(sub)) {
      return this.error(client, `Invalid subscription ${JSON.stringify(sub)}`);
    }
    if (req.method === "subscribe") this.subscribe(client, sub);
    else this.unsubscribe(client, sub);
  }

  private subscribe(client: Client, sub: Subscription): void {
    const key = subscriptionKey(sub);
    if (client.subs.has(key)) return this.error(client, `Already subscribed: ${JSON.stringify(sub)}`);
    if (this.subscriptionsOf(client.ip) >= this.limits.maxSubscriptionsPerIp) {
      return this.error(client, `Cannot subscribe to more than ${this.limits.maxSubscriptionsPerIp} channels.`);
    }
    client.subs.set(key, sub);
    this.send(client, { channel: "subscriptionResponse", data: { method: "subscribe", subscription: sub } });
    const channel = this.channels.get(sub.type)!;
    const data = channel.snapshot?.(sub);
    if (data !== undefined) this.send(client, { channel: channel.channel ?? sub.type, data });
  }

  private unsubscribe(client: Client, sub: Subscription): void {
    if (!client.subs.delete(subscriptionKey(sub))) {
      return this.error(client, `Already unsubscribed: ${JSON.stringify(sub)}`);
    }
    this.send(client, { channel: "subscriptionResponse", data: { method: "unsubscribe", subscription: sub } });
  }

  private connectionsOf(ip: string): number {
    let n = 0;
    for (const c of this.clients) if (c.ip === ip) n++;
    return n;
  }

  private subscriptionsOf(ip: string): number {
    let n = 0;
    for (const c of this.clients) if (c.ip === ip) n += c.subs.size;
    return n;
  }

  private error(client: Client, message: string): void {
    this.send(client, { channel: "error", data: message });
  }

  private send(client: Client, msg: unknown): void {
    if (client.socket.readyState === WebSocket.OPEN) client.socket.send(JSON.stringify(msg));
  }
}
