// WebSocket test helpers: a raw client that keeps every message (Probe), the `ws` constructor cast the
// SDK's transport wants on Node 20, and a channel harness: the real SimStreams and SimWsServer over a
// real socket, on an engine context whose events the test emits itself (the engine's own emitting is
// tested through the sim's HTTP endpoint in the other files).
import type { WebSocketTransport } from "@nktkas/hyperliquid";
import { WebSocket } from "ws";
import { createEngineCtx, type EngineCtx } from "../../daemon/sim/engine/context.js";
import { DEFAULT_BOOK } from "../../daemon/sim/engine/book.js";
import { DEFAULT_FEES } from "../../daemon/sim/engine/fills.js";
import { DEFAULT_MARKETS, MarketList } from "../../daemon/sim/markets.js";
import { SimHttpServer } from "../../daemon/sim/server.js";
import { SimEvents } from "../../daemon/sim/sim-events.js";
import { openDb } from "../../daemon/sim/store/db.js";
import { SimRepo } from "../../daemon/sim/store/repo.js";
import { FaultQueue } from "../../daemon/sim/faults.js";
import { silentLogger } from "../../daemon/sim/types.js";
import { SimStreams } from "../../daemon/sim/ws-channels.js";
import { DEFAULT_WS_LIMITS, SimWsServer, type WsLimits } from "../../daemon/sim/ws.js";
import { waitUntil, within } from "../helpers/util.js";

// ws's first constructor overload (address: null) does not match the SDK's DOM-style type; it works the same.
export type SdkWebSocket = NonNullable<NonNullable<ConstructorParameters<typeof WebSocketTransport>[0]>["reconnect"]>["WebSocket"];
export const SdkWs = WebSocket as unknown as SdkWebSocket;

export const ack = (method: string, subscription: unknown) => ({ channel: "subscriptionResponse", data: { method, subscription } });

/** A raw client that keeps every message it got, in order. */
export class Probe {
  readonly messages: any[] = [];
  readonly socket: WebSocket;
  closeCode: number | undefined;

  constructor(url: string) {
    this.socket = new WebSocket(url);
    this.socket.on("message", (d) => this.messages.push(JSON.parse(d.toString())));
    this.socket.on("close", (code) => (this.closeCode = code));
  }

  static async open(port: number, path = "/ws"): Promise<Probe> {
    const p = new Probe(`ws://127.0.0.1:${port}${path}`);
    await within(new Promise((resolve, reject) => {
      p.socket.once("open", resolve);
      p.socket.once("error", reject);
    }), 5_000, "the socket opening");
    return p;
  }

  send(msg: unknown): void {
    this.socket.send(typeof msg === "string" ? msg : JSON.stringify(msg));
  }

  /** Waits until `n` messages have arrived and returns the n-th (1-based). */
  async nth(n: number): Promise<any> {
    await waitUntil(() => this.messages.length >= n, { what: `message ${n} (have ${JSON.stringify(this.messages)})` });
    return this.messages[n - 1];
  }

  /** The first message after index `from` that `match` accepts, waiting for it. */
  async find(match: (m: any) => boolean, what: string, from = 0): Promise<any> {
    return waitUntil(() => this.messages.slice(from).find(match), { what: `${what} (have ${JSON.stringify(this.messages)})` });
  }

  /** Subscribes and waits for the answer; returns its 1-based index, so `nth(i + 1)` is the snapshot. */
  async subscribe(subscription: unknown): Promise<number> {
    const from = this.messages.length;
    this.send({ method: "subscribe", subscription });
    const answer = await this.find((m) => m.channel === "subscriptionResponse" || m.channel === "error", "the subscription's answer", from);
    return this.messages.indexOf(answer, from) + 1;
  }

  /** Sends a ping and waits for its pong: everything the server sent before it has arrived. */
  async sync(): Promise<any[]> {
    const before = this.messages.length;
    this.send({ method: "ping" });
    await waitUntil(() => this.messages.slice(before).some((m) => m.channel === "pong"), { what: "pong" });
    return this.messages.slice(before, this.messages.findLastIndex((m) => m.channel === "pong"));
  }

  /** Everything that arrived from index `from` on, up to now (synced by a ping). */
  async since(from: number): Promise<any[]> {
    await this.sync();
    return this.messages.slice(from).filter((m) => m.channel !== "pong");
  }

  async closed(): Promise<number> {
    await waitUntil(() => this.closeCode !== undefined, { what: "the socket closing" });
    return this.closeCode!;
  }

  close(): void {
    this.socket.terminate();
  }
}

export interface ChannelHarness {
  ctx: EngineCtx;
  port: number;
  open(): Promise<Probe>;
  close(): Promise<void>;
}

/** SimStreams + SimWsServer on a fresh in-memory engine context, listening on 127.0.0.1:0. */
export async function startChannels(limits: Partial<WsLimits> = {}): Promise<ChannelHarness> {
  const db = openDb(":memory:");
  // No funding and the venue's scheduleCancel gate: fields of the engine's config
  // (a variable, not a literal, so the same file compiles before and after that work).
  const cfg = {
    fees: DEFAULT_FEES, book: DEFAULT_BOOK, defaultLeverage: 20, minOrderValueUsd: "10",
    fundingRate: "0", scheduleCancelMinVolumeUsd: "1000000", dustClosesExempt: true,
  };
  const ctx = createEngineCtx(new SimRepo(db), new MarketList(DEFAULT_MARKETS), cfg, Date.now, new SimEvents((err) => console.error(err)));
  const streams = new SimStreams(ctx, silentLogger);
  const ws = new SimWsServer(streams.channels, { ...DEFAULT_WS_LIMITS, ...limits }, silentLogger, () => undefined);
  streams.attach(ws);
  const server = new SimHttpServer({
    info: () => null, exchange: () => null, control: async () => ({ status: 404, json: null }),
    faults: new FaultQueue(), logger: silentLogger, now: Date.now, requestLogLimit: 10,
    upgrade: (req, socket, head) => ws.handleUpgrade(req, socket, head),
  });
  const port = await server.listen("127.0.0.1", 0);
  return {
    ctx,
    port,
    open: () => Probe.open(port),
    async close() {
      await ws.close();
      await server.close();
      db.close();
    },
  };
}
