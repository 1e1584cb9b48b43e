// The sim's HTTP transport: routes POST /info and /exchange (Hyperliquid's API) and the loopback-only
// test controls under /sim/ (any method; the controls choose), records every request, and applies
// injected faults. Handlers only delegate; error bodies mimic the real server (axum): 400/415/422
// text/plain. WebSocket upgrades go to the `upgrade` dependency (ws.ts).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import type { ActiveFault, FaultKind, FaultQueue } from "./faults.js";
import type { SimLogger } from "./types.js";
import { WireError } from "./wire.js";

export interface RequestLogEntry {
  id: number;
  time: number;
  method: string;
  path: string;
  remoteAddress: string;
  body?: unknown;
  /** HTTP status sent; undefined when the connection was dropped or is still open. */
  status?: number;
  /** What was sent back (JSON value or error text). */
  response?: unknown;
  /** The API answer the sim computed, also when a fault kept it from the caller. */
  result?: unknown;
  fault?: FaultKind;
}

export interface ControlResult {
  status: number;
  json: unknown;
}

export interface ServerDeps {
  info(body: unknown): unknown;
  exchange(body: unknown): unknown;
  control(method: string, path: string, body: unknown, query: URLSearchParams): Promise<ControlResult>;
  faults: FaultQueue;
  logger: SimLogger;
  now(): number;
  requestLogLimit: number;
  /** Takes HTTP upgrade requests (the WebSocket); without it they are refused. */
  upgrade?(req: IncomingMessage, socket: Duplex, head: Buffer): void;
}

const MAX_BODY = 1024 * 1024;

export function isLoopbackAddress(address: string | undefined): boolean {
  if (!address) return false;
  return address === "::1" || address.startsWith("127.") || address.startsWith("::ffff:127.");
}

class HttpError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) reject(new HttpError(413, "Payload Too Large"));
      else chunks.push(c);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const text = await readBody(req);
  if (!String(req.headers["content-type"] ?? "").includes("application/json")) {
    throw new HttpError(415, "Expected request with `Content-Type: application/json`");
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new HttpError(400, "Failed to parse the request body as JSON");
  }
}

export class SimHttpServer {
  readonly requests: RequestLogEntry[] = [];
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private seq = 0;

  constructor(private readonly deps: ServerDeps) {
    this.server = createServer((req, res) => void this.handle(req, res));
    this.server.on("connection", (s) => {
      this.sockets.add(s);
      s.on("close", () => this.sockets.delete(s));
    });
    this.server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      if (this.deps.upgrade) this.deps.upgrade(req, socket, head);
      else socket.destroy();
    });
  }

  listen(host: string, port: number): Promise<number> {
    return new Promise((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen(port, host, () => {
        const addr = this.server.address();
        resolve(typeof addr === "object" && addr ? addr.port : port);
      });
    });
  }

  /** Stops listening and drops every open connection, hung ones included. */
  close(): Promise<void> {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      for (const s of this.sockets) s.destroy();
    });
  }

  private later(ms: number, fn: () => void): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.timers.delete(t);
        fn();
        resolve();
      }, ms);
      this.timers.add(t);
    });
  }

  private log(req: IncomingMessage, path: string): RequestLogEntry {
    const entry: RequestLogEntry = {
      id: ++this.seq, time: this.deps.now(), method: req.method ?? "", path,
      remoteAddress: req.socket.remoteAddress ?? "",
    };
    this.requests.push(entry);
    if (this.requests.length > this.deps.requestLogLimit) this.requests.shift();
    return entry;
  }

  /** Sends text/plain for a string body unless `asJson` (an API answer may be a JSON string: userAbstraction). */
  private send(res: ServerResponse, entry: RequestLogEntry, status: number, body: unknown, asJson = false): void {
    const json = asJson || typeof body !== "string";
    entry.status = status;
    entry.response = body;
    res.writeHead(status, { "Content-Type": json ? "application/json" : "text/plain; charset=utf-8" });
    res.end(json ? JSON.stringify(body) : body);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://sim");
    const path = url.pathname;
    const entry = this.log(req, path);
    try {
      if (path.startsWith("/sim/")) return await this.serveControl(req, res, entry, url);
      if (path !== "/info" && path !== "/exchange") throw new HttpError(404, "Not Found");
      if (req.method !== "POST") throw new HttpError(405, "Method Not Allowed");
      entry.body = await readJson(req);
      await this.serveApi(path === "/info" ? "info" : "exchange", entry, res);
    } catch (e) {
      if (e instanceof HttpError) return this.send(res, entry, e.status, e.message);
      this.deps.logger.error({ err: e, path }, "sim request failed");
      this.send(res, entry, 500, "Internal Server Error");
    }
  }

  /** The controls choose their methods (GET and DELETE /sim/faults have no body); loopback comes first. */
  private async serveControl(req: IncomingMessage, res: ServerResponse, entry: RequestLogEntry, url: URL): Promise<void> {
    if (!isLoopbackAddress(req.socket.remoteAddress)) throw new HttpError(403, "sim test controls answer only on loopback");
    const method = req.method ?? "";
    if (method === "POST") entry.body = await readJson(req);
    const out = await this.deps.control(method, url.pathname, entry.body, url.searchParams);
    this.send(res, entry, out.status, out.json);
  }

  private async serveApi(endpoint: "info" | "exchange", entry: RequestLogEntry, res: ServerResponse): Promise<void> {
    const fault = this.deps.faults.take(endpoint, entry.body);
    if (fault) entry.fault = fault.kind;
    if (fault?.kind === "http500") return this.send(res, entry, 500, "Internal Server Error");
    if (fault?.kind === "timeout") return this.later(fault.delayMs, () => res.socket?.destroy());
    let result: unknown;
    try {
      result = endpoint === "info" ? this.deps.info(entry.body) : this.deps.exchange(entry.body);
    } catch (e) {
      if (!(e instanceof WireError)) throw e;
      return this.send(res, entry, 422, "Failed to deserialize the JSON body into the target type");
    }
    entry.result = result;
    await this.deliver(fault, entry, res, result);
  }

  private async deliver(fault: ActiveFault | undefined, entry: RequestLogEntry, res: ServerResponse, result: unknown) {
    if (fault?.kind === "drop-after-processing") {
      if (fault.then === "http500") return this.send(res, entry, 500, "Internal Server Error");
      res.socket?.destroy();
      return;
    }
    if (fault?.kind === "delay") await this.later(fault.delayMs, () => {});
    if (!res.destroyed) this.send(res, entry, 200, result, true);
  }
}
