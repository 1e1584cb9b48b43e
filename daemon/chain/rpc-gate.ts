// The daemon's JSON-RPC transport to the embedded node, with a gate: while the node is being
// replaced (a compaction, or a restart after Anvil died) every request waits at the gate instead of
// failing, then goes to the new node on the same port. Closing the gate also waits for the requests
// already on the wire, so a snapshot taken behind it is the node's exact state.
import { FetchRequest } from "ethers";
import type { FetchGetUrlFunc } from "ethers";
import { AppError } from "../errors.js";

export interface RpcGate {
  /** A FetchRequest for ethers' JsonRpcProvider that passes through the gate. */
  request(url: string): FetchRequest;
  /** Holds new requests and waits (up to `timeoutMs`) for those in flight; false if some are still out. */
  close(timeoutMs: number): Promise<boolean>;
  open(): void;
  isClosed(): boolean;
}

/** How long a request waits at a closed gate before failing as retryable (a restart that keeps failing). */
const MAX_WAIT_MS = 60_000;

export function rpcGate(): RpcGate {
  const base = FetchRequest.createGetUrlFunc();
  let closed: { promise: Promise<void>; release(): void } | undefined;
  let inFlight = 0;

  const through: FetchGetUrlFunc = async (req, signal) => {
    const deadline = Date.now() + MAX_WAIT_MS;
    while (closed) {
      const waited = await Promise.race([closed.promise.then(() => true), new Promise<false>((r) => setTimeout(r, 1_000, false).unref())]);
      if (!waited && Date.now() > deadline) {
        throw new AppError("CHAIN_UNAVAILABLE", "the embedded chain is restarting", { retryable: true });
      }
    }
    inFlight++;
    try {
      return await base(req, signal);
    } finally {
      inFlight--;
    }
  };

  return {
    request(url) {
      const req = new FetchRequest(url);
      req.getUrlFunc = through;
      return req;
    },
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
