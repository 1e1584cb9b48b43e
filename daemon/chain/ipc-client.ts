// JSON-RPC to the embedded node over its IPC socket: the daemon's only way to Anvil (see
// node-isolation.ts). One connection, opened on first use and again after it drops. Anvil answers a
// connection's requests in any order, one JSON document a line, and several callers (the daemon's
// provider, the public proxy) share the connection with ids of their own that may collide, so every
// call goes out under an id of ours and comes back with the caller's.
import { createConnection } from "node:net";
import type { Socket } from "node:net";
import { AppError } from "../errors.js";

export interface JsonRpcCall {
  jsonrpc?: string;
  /** Absent on a notification; the node is still asked under an id of ours. */
  id?: unknown;
  method: string;
  params?: unknown;
}

export interface JsonRpcReply {
  jsonrpc: "2.0";
  id: unknown;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

export interface IpcClient {
  /** The node's answer to one call, under the caller's id. */
  call(call: JsonRpcCall): Promise<JsonRpcReply>;
  /** Several calls as one JSON-RPC batch; the answers in call order, under the callers' ids. */
  batch(calls: JsonRpcCall[]): Promise<JsonRpcReply[]>;
  /** Fails what is waiting and closes the connection (the next call opens a new one). */
  close(): void;
}

/** As long as ethers waits for an HTTP answer by default: a hung node fails its callers in the end. */
const DEFAULT_TIMEOUT_MS = 300_000;

interface Waiter {
  ids: number[];
  got: Map<number, JsonRpcReply>;
  resolve(replies: JsonRpcReply[]): void;
  reject(e: Error): void;
  timer: NodeJS.Timeout;
}

const unavailable = (why: string) => new AppError("CHAIN_UNAVAILABLE", `embedded chain (IPC): ${why}`, { retryable: true });

/** Cuts a byte stream into lines without copying the stream over and over (a state dump is tens of MB). */
function lineReader(onLine: (line: string) => void): (chunk: Buffer) => void {
  let pending: Buffer[] = [];
  return (chunk) => {
    let start = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
      pending.push(chunk.subarray(start, nl));
      const line = Buffer.concat(pending).toString("utf8");
      pending = [];
      start = nl + 1;
      if (line.trim()) onLine(line);
    }
    if (start < chunk.length) pending.push(chunk.subarray(start));
  };
}

export function ipcClient(path: string, timeoutMs = DEFAULT_TIMEOUT_MS): IpcClient {
  let socket: Socket | undefined;
  let nextId = 1;
  const waiting = new Map<number, Waiter>();

  const settle = (w: Waiter, e?: Error) => {
    clearTimeout(w.timer);
    for (const id of w.ids) waiting.delete(id);
    if (e) w.reject(e);
    else w.resolve(w.ids.map((id) => w.got.get(id)!));
  };
  const failAll = (e: Error) => new Set(waiting.values()).forEach((w) => settle(w, e));

  const deliver = (reply: JsonRpcReply) => {
    const w = typeof reply?.id === "number" ? waiting.get(reply.id) : undefined;
    if (!w) return; // a subscription's message, or an answer that came after its timeout
    w.got.set(reply.id as number, reply);
    if (w.got.size === w.ids.length) settle(w);
  };

  const onLine = (line: string) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      failAll(unavailable("the node sent a line that is not JSON"));
      socket?.destroy();
      return;
    }
    for (const reply of Array.isArray(parsed) ? parsed : [parsed]) deliver(reply as JsonRpcReply);
  };

  const connection = (): Socket => {
    if (socket && !socket.destroyed) return socket;
    const s = createConnection(path);
    s.on("data", lineReader(onLine));
    s.on("error", () => undefined); // "close" follows and fails the waiters
    s.on("close", () => {
      if (socket === s) socket = undefined;
      failAll(unavailable("the connection to the node closed"));
    });
    socket = s;
    return s;
  };

  /** Sends `calls` under fresh ids; the answers come back in call order with the callers' ids. */
  const exchange = (calls: JsonRpcCall[], asBatch: boolean): Promise<JsonRpcReply[]> =>
    new Promise((resolve, reject) => {
      const ids = calls.map(() => nextId++);
      const waiter: Waiter = {
        ids, got: new Map(), reject,
        resolve: (replies) => resolve(replies.map((r, i) => ({ ...r, id: calls[i]!.id ?? null }))),
        timer: setTimeout(() => settle(waiter, unavailable(`no answer within ${timeoutMs} ms`)), timeoutMs),
      };
      waiter.timer.unref();
      for (const id of ids) waiting.set(id, waiter);
      const out = calls.map((c, i) => ({ jsonrpc: "2.0", method: c.method, params: c.params ?? [], id: ids[i] }));
      connection().write(JSON.stringify(asBatch ? out : out[0]));
    });

  return {
    call: async (c) => (await exchange([c], false))[0]!,
    batch: async (calls) => (calls.length === 0 ? [] : exchange(calls, true)),
    close() {
      failAll(unavailable("the client was closed"));
      socket?.destroy();
      socket = undefined;
    },
  };
}
