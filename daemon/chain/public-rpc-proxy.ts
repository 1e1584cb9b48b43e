// The embedded chain's public JSON-RPC endpoint: 127.0.0.1:--chain-port, the URL `/healthz`
// publishes as chain.rpcUrl. Wallets and the CLI read the chain and send the transactions they signed
// through it; each call public-rpc-policy.ts refuses is answered here with -32601 (in a 200, a batch
// answered per element), and the rest go to the node through the daemon's gate. Not to be confused
// with rpc-gate.ts, the daemon's own transport. HTTP POST only, a bounded body, no CORS headers (as
// Anvil ran with --no-cors), no WebSocket.
import { createServer } from "node:http";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "pino";
import { AppError } from "../errors.js";
import type { JsonRpcCall, JsonRpcReply } from "./ipc-client.js";
import {
  RPC_INTERNAL_ERROR, RPC_INVALID_REQUEST, RPC_PARSE_ERROR, judge, rpcError, wantsAnswer,
} from "./public-rpc-policy.js";
import type { NodeSend } from "./rpc-gate.js";

/** Anvil's own default request limit: every request a wallet sent it before fits. */
export const MAX_BODY_BYTES = 2 * 1024 * 1024;
/** Past this much, a refused body is no longer read to its end: the connection is dropped. */
const CUT_OFF_BYTES = 8 * MAX_BODY_BYTES;

export interface PublicRpcProxy {
  url: string;
  port: number;
  close(): Promise<void>;
}

export interface PublicRpcProxyOptions {
  /** 0 = any free port; always 127.0.0.1. */
  port: number;
  send: NodeSend;
  log: Logger;
}

interface Answer {
  status: number;
  /** Absent: nothing to say (only notifications were sent), so 204. */
  body?: unknown;
  headers?: Record<string, string>;
}

/** The answer to a parsed request or batch: refusals from here, the rest from the node, in request order. */
async function answer(payload: unknown, send: NodeSend, log: Logger): Promise<Answer> {
  const batch = Array.isArray(payload);
  const elements: unknown[] = batch ? payload : [payload];
  if (elements.length === 0) return { status: 200, body: rpcError(null, RPC_INVALID_REQUEST, "invalid request: an empty batch") };
  const verdicts = elements.map(judge);
  const forward = verdicts.flatMap((v) => ("forward" in v ? [v.forward] : []));
  const refused = elements.filter((_, i) => "answer" in verdicts[i]!).map((e) => String((e as Partial<JsonRpcCall> | null)?.method).slice(0, 80));
  if (refused.length > 0) log.warn({ methods: refused }, "public chain RPC: refused or invalid calls");
  const replies: JsonRpcReply[] = forward.length > 0 ? await send(forward) : [];
  let next = 0;
  const out = verdicts
    .map((v) => ("forward" in v ? (replies[next++] ?? rpcError(v.forward.id, RPC_INTERNAL_ERROR, "the node did not answer")) : v.answer))
    .filter((_, i) => wantsAnswer(elements[i]));
  if (out.length === 0) return { status: 204 };
  return { status: 200, body: batch ? out : out[0] };
}

/**
 * The body, or undefined when it passes `MAX_BODY_BYTES` (the caller answers 413). The excess is read
 * and dropped, so the answer reaches the client (closing on unread data would reset the connection
 * under it); a client still sending past `CUT_OFF_BYTES` is cut off without one.
 */
function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    if (Number(req.headers["content-length"] ?? 0) > CUT_OFF_BYTES) {
      req.destroy();
      return resolve(undefined);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY_BYTES) chunks.push(c);
      else if (size > CUT_OFF_BYTES) req.destroy();
    });
    req.on("end", () => resolve(size > MAX_BODY_BYTES ? undefined : Buffer.concat(chunks)));
    req.on("close", () => resolve(undefined)); // destroyed before its end: nobody to answer
    req.on("error", reject);
  });
}

async function respond(req: IncomingMessage, send: NodeSend, log: Logger): Promise<Answer> {
  if (req.method !== "POST") {
    return { status: 405, headers: { allow: "POST" }, body: rpcError(null, RPC_INVALID_REQUEST, "send JSON-RPC requests by POST") };
  }
  const body = await readBody(req);
  if (!body) {
    return { status: 413, body: rpcError(null, RPC_INVALID_REQUEST, `request larger than ${MAX_BODY_BYTES} bytes`) };
  }
  let payload: unknown;
  try {
    payload = JSON.parse(body.toString("utf8"));
  } catch {
    return { status: 200, body: rpcError(null, RPC_PARSE_ERROR, "parse error: the body is not JSON") };
  }
  try {
    return await answer(payload, send, log);
  } catch (e) {
    // The node is down or being replaced for longer than the gate waits: worth a retry, like a 503.
    log.warn({ err: e }, "public chain RPC: the node did not answer");
    return { status: 503, body: rpcError(null, RPC_INTERNAL_ERROR, "the embedded chain is not available right now; try again") };
  }
}

function write(res: ServerResponse, a: Answer): void {
  if (res.destroyed) return; // a client cut off while sending
  const text = a.body === undefined ? "" : JSON.stringify(a.body);
  res.writeHead(a.status, { ...(text ? { "content-type": "application/json" } : {}), ...a.headers });
  res.end(text);
}

export async function startPublicRpcProxy(o: PublicRpcProxyOptions): Promise<PublicRpcProxy> {
  const server = createServer((req, res) => {
    void respond(req, o.send, o.log)
      .catch((e: unknown): Answer => {
        o.log.error({ err: e }, "public chain RPC: request failed");
        return { status: 500, body: rpcError(null, RPC_INTERNAL_ERROR, "internal error") };
      })
      .then((a) => write(res, a));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", (e: NodeJS.ErrnoException) =>
      reject(new AppError("CHAIN_UNAVAILABLE", e.code === "EADDRINUSE"
        ? `127.0.0.1:${o.port} is already in use; choose another --chain-port`
        : `the chain's public RPC cannot listen on 127.0.0.1:${o.port}: ${e.message}`, { cause: e })));
    server.listen(o.port, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
