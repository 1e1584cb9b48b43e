// The exchange's price stream: one WebSocket subscription to Hyperliquid's `allMids` (all coins, no
// user, no request weight), kept open across faults. A dropped connection is reopened with backoff
// and the subscription sent again; while it is down the oracle keeps polling as before, and the
// status says so. The stream counts as up only once the exchange has acknowledged the subscription
// or sent mids on the current connection: a socket it opens and closes at once (a per-IP connection
// limit) is still down, and its backoff keeps growing. Messages carry no timestamp, so each is stamped on arrival and handed on in arrival
// order: a valuation never moves back in time.
import { WebSocket } from "ws";
import type { Logger } from "pino";
import { backoffMs } from "../lib/backoff.js";

export type PriceStreamState = "connecting" | "open" | "down" | "off";

export interface PriceStreamStatus {
  state: PriceStreamState;
  /** Seconds since the last message (any channel, pongs included); null before the first. */
  lastMessageAgeSeconds: number | null;
  /** Times the connection was (re)opened. */
  connects: number;
  /** Seconds since the stream last carried data (since start when it never did); null while it does, and when off. */
  downSeconds: number | null;
}

export interface PriceStreamOptions {
  /** The exchange's API base (http(s)://host[:port]); the socket is at ws(s)://host[:port]/ws. */
  apiUrl: string;
  /** Every allMids message: symbol -> mid (decimal strings), and when it arrived (Unix ms). */
  onMids(mids: Record<string, string>, receivedAt: number): void;
  log: Logger;
  clock?: () => number;
  /** A ping after this much silence; the connection is dropped after twice this with no answer. */
  heartbeatMs?: number;
  /** First reconnect delay, doubled up to maxBackoffMs. */
  backoffMs?: number;
  maxBackoffMs?: number;
}

export function wsUrlOf(apiUrl: string): string {
  const u = new URL(apiUrl);
  u.protocol = u.protocol === "https:" ? "wss:" : "ws:";
  u.pathname = `${u.pathname.replace(/\/+$/, "")}/ws`;
  return u.toString();
}

export function createPriceStream(opts: PriceStreamOptions) {
  const clock = opts.clock ?? Date.now;
  const heartbeatMs = opts.heartbeatMs ?? 20_000;
  const url = wsUrlOf(opts.apiUrl);
  let socket: WebSocket | undefined;
  let state: PriceStreamState = "off";
  let lastMessageAt: number | null = null;
  let connects = 0;
  let failures = 0;
  let stopped = true;
  /** When the stream stopped carrying data; null while it carries it. */
  let downSince: number | null = null;
  let reconnectTimer: NodeJS.Timeout | undefined;
  let heartbeat: NodeJS.Timeout | undefined;

  function scheduleReconnect() {
    if (stopped) return;
    state = "down";
    downSince ??= clock();
    const delay = backoffMs(failures + 1, opts.backoffMs ?? 500, opts.maxBackoffMs ?? 30_000);
    failures += 1;
    reconnectTimer = setTimeout(connect, delay);
    reconnectTimer.unref();
  }

  function connect() {
    if (stopped) return;
    state = "connecting";
    const ws = new WebSocket(url, { handshakeTimeout: 10_000 });
    socket = ws;
    let silentSince = clock();
    ws.on("open", () => {
      connects += 1;
      state = "open";
      ws.send(JSON.stringify({ method: "subscribe", subscription: { type: "allMids" } }));
      heartbeat = setInterval(() => {
        // Hyperliquid closes a connection silent for 60 s; a ping keeps it, and no answer means it is gone.
        if (clock() - silentSince > 2 * heartbeatMs) ws.terminate();
        else if (clock() - silentSince > heartbeatMs) ws.send(JSON.stringify({ method: "ping" }));
      }, Math.max(250, heartbeatMs / 4));
      heartbeat.unref();
    });
    ws.on("message", (raw) => {
      const now = clock();
      silentSince = now;
      lastMessageAt = now;
      let msg: { channel?: string; data?: { mids?: Record<string, string> } };
      try {
        msg = JSON.parse(String(raw));
      } catch {
        return;
      }
      if (msg.channel === "subscriptionResponse" || msg.channel === "allMids") {
        // The exchange took the subscription: only now is the stream up and the backoff reset.
        failures = 0;
        downSince = null;
      }
      if (msg.channel === "allMids" && msg.data?.mids) opts.onMids(msg.data.mids, now);
      else if (msg.channel === "error") opts.log.warn({ error: msg.data }, "price stream: the exchange refused a request");
    });
    ws.on("error", (err) => opts.log.debug({ err: err.message, url }, "price stream error"));
    ws.on("close", () => {
      clearInterval(heartbeat);
      if (socket === ws) socket = undefined;
      if (!stopped) {
        opts.log.warn({ url, retry: failures }, "price stream closed; reconnecting (the oracle keeps polling meanwhile)");
        scheduleReconnect();
      }
    });
  }

  return {
    url,
    start() {
      if (!stopped) return;
      stopped = false;
      downSince = clock();
      connect();
    },
    status(): PriceStreamStatus {
      return {
        state,
        lastMessageAgeSeconds: lastMessageAt === null ? null : Math.floor((clock() - lastMessageAt) / 1000),
        connects,
        downSeconds: state === "off" || downSince === null ? null : Math.floor((clock() - downSince) / 1000),
      };
    },
    async stop() {
      stopped = true;
      state = "off";
      downSince = null;
      clearTimeout(reconnectTimer);
      clearInterval(heartbeat);
      const ws = socket;
      socket = undefined;
      if (ws && ws.readyState !== WebSocket.CLOSED) {
        await new Promise<void>((resolve) => {
          ws.once("close", () => resolve());
          ws.terminate();
        });
      }
    },
  };
}

export type PriceStream = ReturnType<typeof createPriceStream>;
