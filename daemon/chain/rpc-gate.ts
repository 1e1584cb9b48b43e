// The daemon's JSON-RPC transport to the embedded node (over its IPC socket), with a gate: while the
// node is being replaced (a compaction, or a restart after Anvil died) every request waits at the
// gate instead of failing, then goes to the new node. Closing the gate also waits for the requests
// already on the wire, so a snapshot taken behind it is the node's exact state. The daemon's ethers
// provider and the public proxy (public-rpc-proxy.ts) both pass through it.
import { FetchRequest, toUtf8Bytes, toUtf8String } from "ethers";
import type { FetchGetUrlFunc } from "ethers";
import { AppError } from "../errors.js";
import type { IpcClient, JsonRpcCall, JsonRpcReply } from "./ipc-client.js";

/** One JSON-RPC call or batch to the node; a batch's answers come back in call order. */
export type NodeSend = <P extends JsonRpcCall | JsonRpcCall[]>(payload: P) => Promise<P extends JsonRpcCall[] ? JsonRpcReply[] : JsonRpcReply>;

export interface RpcGate {
  /** A FetchRequest for ethers' JsonRpcProvider whose requests go through the gate to the node. */
  request(): FetchRequest;
  /** One call or batch through the gate. */
  send: NodeSend;
  /** Holds new requests and waits (up to `timeoutMs`) for those in flight; false if some are still out. */
  close(timeoutMs: number): Promise<boolean>;
  open(): void;
  isClosed(): boolean;
}

/** How long a request waits at a closed gate before failing as retryable (a restart that keeps failing). */
const MAX_WAIT_MS = 60_000;
/** The URL ethers is given: only a label, since the transport below never dials it. */
const LABEL_URL = "http://embedded-chain.ipc/";

/** A gate in front of `node()`, the current node's IPC client (it changes when the node is replaced). */
export function rpcGate(node: () => IpcClient): RpcGate {
  let closed: { promise: Promise<void>; release(): void } | undefined;
  let inFlight = 0;

  const send = (async (payload: JsonRpcCall | JsonRpcCall[]) => {
    const deadline = Date.now() + MAX_WAIT_MS;
    while (closed) {
      const waited = await Promise.race([closed.promise.then(() => true), new Promise<false>((r) => setTimeout(r, 1_000, false).unref())]);
      if (!waited && Date.now() > deadline) {
        throw new AppError("CHAIN_UNAVAILABLE", "the embedded chain is restarting", { retryable: true });
      }
    }
    inFlight++;
    try {
      const ipc = node();
      return await (Array.isArray(payload) ? ipc.batch(payload) : ipc.call(payload));
    } finally {
      inFlight--;
    }
  }) as NodeSend;

  // ethers hands over the HTTP body it would have posted; the answer goes back as an HTTP 200 body.
  const through: FetchGetUrlFunc = async (req) => {
    const payload = JSON.parse(toUtf8String(req.body ?? new Uint8Array())) as JsonRpcCall | JsonRpcCall[];
    const reply = await send(payload);
    return { statusCode: 200, statusMessage: "OK", headers: { "content-type": "application/json" }, body: toUtf8Bytes(JSON.stringify(reply)) };
  };

  return {
    request() {
      const req = new FetchRequest(LABEL_URL);
      req.getUrlFunc = through;
      return req;
    },
    send,
    async close(timeoutMs) {
      if (!closed) {
        let release!: () => void;
        const promise = new Promise<void>((r) => (release = r));
        closed = { promise, release };
      }
      const deadline = Date.now() + timeoutMs;
      while (inFlight > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
      return inFlight === 0;
    },
    open() {
      const c = closed;
      closed = undefined;
      c?.release();
    },
    isClosed: () => closed !== undefined,
  };
}
