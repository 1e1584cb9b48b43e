// The sim's WebSocket at /ws, speaking Hyperliquid's protocol: subscribe/unsubscribe acks on
// `subscriptionResponse`, data on the channel named by the subscription type, `ping` -> `pong`, `post`
// (an /info or /exchange body over the socket) answered on `post`, and problems on the `error` channel
// without closing the socket. What a subscription type streams lives in a registry (type -> Channel)
// so new types plug in without touching the protocol.
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocket, WebSocketServer } from "ws";
import type { SimLogger } from "./types.js";
import { parseRequest, subscriptionKey, type PostRequest, type Subscription } from "./ws-protocol.js";

export type { PostRequest, Subscription } from "./ws-protocol.js";

/** What a `post` answers, as `data.response` of the `post` channel. */
export interface PostResponse {
  type: "info" | "action" | "error";
  payload: unknown;
}

/** Answers a post; undefined when the payload is not a request the venue parses (its HTTP 422). */
export type PostHandler = (req: PostRequest) => PostResponse | undefined;

/** One subscription type. */
export interface Channel {
  /** The venue's channel name for the data messages when it differs from the type (userEvents -> "user"). */
  channel?: string;
  /** Whether the subscription's other fields are valid for this type. */
  accepts(sub: Subscription): boolean;
  /** Data of the message sent right after the ack; undefined sends none. */
  snapshot?(sub: Subscription): unknown;
  /** The user a user-specific subscription follows (lowercase), for the unique-users limit. */
  user?(sub: Subscription): string;
}

export interface WsLimits {
  /** Open sockets per remote address (the venue allows 10). */
  maxConnectionsPerIp: number;
  /** Subscriptions per remote address across its sockets (the venue allows 1000). */
  maxSubscriptionsPerIp: number;
  /** Distinct users in user-specific subscriptions per remote address (the venue allows 10). */
  maxUsersPerIp: number;
}

export const DEFAULT_WS_LIMITS: WsLimits = { maxConnectionsPerIp: 10, maxSubscriptionsPerIp: 1000, maxUsersPerIp: 10 };

// A closing handshake normally takes one round trip; a client that never answers must not hold stop().
const CLOSE_GRACE_MS = 1000;
const MAX_MESSAGE_BYTES = 64 * 1024;

interface Client {
  socket: WebSocket;
  ip: string;
  /** Canonical key -> the subscription as the client sent it. */
  subs: Map<string, Subscription>;
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
    private readonly post: PostHandler,
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
      if (isBinary) return;
      try {
        this.onMessage(client, data.toString());
      } catch (err) {
        // A channel's bug must not take the sim down with it (an event listener has no caller to catch).
        this.logger.error({ err, ip: client.ip }, "sim websocket message failed");
        this.error(client, "Internal server error");
      }
    });
  }

  private onMessage(client: Client, text: string): void {
    const req = parseRequest(text);
    // The venue parses the subscription as a tagged union: an unknown type fails like bad JSON.
    const known = req && (req.method === "ping" || req.method === "post" || this.channels.has(req.subscription.type));
    if (!req || !known) {
      return this.error(client, `Error parsing JSON into valid websocket request: ${text}`);
    }
    if (req.method === "ping") return this.send(client, { channel: "pong" });
    if (req.method === "post") return this.answerPost(client, req, text);
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
    const channel = this.channels.get(sub.type)!;
    const user = channel.user?.(sub);
    if (user !== undefined && this.tooManyUsers(client.ip, user)) {
      return this.error(client, `Cannot track more than ${this.limits.maxUsersPerIp} total users.`);
    }
    // Read before subscribing: a snapshot that throws leaves no half-made subscription behind.
    const data = channel.snapshot?.(sub);
    client.subs.set(key, sub);
    this.send(client, { channel: "subscriptionResponse", data: { method: "subscribe", subscription: sub } });
    if (data !== undefined) this.send(client, { channel: channel.channel ?? sub.type, data });
  }

  private unsubscribe(client: Client, sub: Subscription): void {
    if (!client.subs.delete(subscriptionKey(sub))) {
      return this.error(client, `Already unsubscribed: ${JSON.stringify(sub)}`);
    }
    this.send(client, { channel: "subscriptionResponse", data: { method: "unsubscribe", subscription: sub } });
  }

  private answerPost(client: Client, req: PostRequest, text: string): void {
    let response: PostResponse | undefined;
    try {
      response = this.post(req);
      // The venue parses the whole message, payload included, as one request type.
      if (!response) return this.error(client, `Error parsing JSON into valid websocket request: ${text}`);
    } catch (err) {
      this.logger.error({ err, id: req.id }, "sim websocket post failed");
      response = { type: "error", payload: "Internal server error" };
    }
    this.send(client, { channel: "post", data: { id: req.id, response } });
  }

  /** Whether following `user` would make this address follow more users than allowed. */
  private tooManyUsers(ip: string, user: string): boolean {
    const users = new Set<string>();
    for (const c of this.clients) {
      if (c.ip !== ip) continue;
      for (const s of c.subs.values()) {
        const u = this.channels.get(s.type)?.user?.(s);
        if (u !== undefined) users.add(u);
      }
    }
    return !users.has(user) && users.size >= this.limits.maxUsersPerIp;
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
