// Sign-in's signature check on a worker thread. A secp256k1 recovery costs about 2 ms of CPU in
// JavaScript; run on the event loop, 8 wallets signing in at once held a read or an order behind
// their checks for 8 ms at the median and 25-30 ms at p99 (bench/RESULTS.md, "Findings"). On its
// own thread the check waits for nothing and holds up nothing. One thread: sign-in is rare next to
// trading, and one is what the machine's other core can give without taking it from the oracle and
// the requests.
//
// The thread starts with a challenge (its login follows within seconds, by when the thread is up) and
// ends after a minute with no check: it holds about 34 MiB (ethers loaded in a second V8 heap), and
// sign-ins come in bursts, when a desk's bots or a team start, not all day. Should it fail or exit,
// the checks it held run on the event loop instead, and the next one starts another.
import { extname } from "node:path";
import { fileURLToPath } from "node:url";
import type { Worker } from "node:worker_threads";
import { startModuleWorker } from "../lib/module-worker.js";
import { recoverSigner } from "./signer.js";
import type { RecoverJob } from "./signer-worker.js";

const ENTRY = new URL(`./signer-worker${extname(fileURLToPath(import.meta.url))}`, import.meta.url);

export interface SignerPool {
  /** The lowercase 0x address whose key signed `message` (EIP-191), or undefined (recoverSigner). */
  recover(message: string, signature: string): Promise<string | undefined>;
  /** Starts the thread if it is not running (a challenge does: its login follows). */
  warm(): void;
  /** Ends the thread; a check still waiting is made on the event loop. */
  close(): Promise<void>;
  /** Whether the thread is up (tests). */
  running(): boolean;
}

interface Waiting extends RecoverJob {
  resolve(signer: string | undefined): void;
}

/** How long the thread outlives its last check. */
const IDLE_MS = 60_000;

export function createSignerPool(opts: { idleMs?: number } = {}): SignerPool {
  const idleMs = opts.idleMs ?? IDLE_MS;
  let worker: Worker | undefined;
  let idle: NodeJS.Timeout | undefined;
  let closed = false;
  let nextId = 0;
  const waiting = new Map<number, Waiting>();

  /** The thread is gone: what it held is answered here. */
  function lost(w: Worker) {
    if (worker !== w) return;
    worker = undefined;
    for (const job of waiting.values()) job.resolve(recoverSigner(job.message, job.signature));
    waiting.clear();
  }

  /** Ends the thread once it has had nothing to do for idleMs. */
  function rest(w: Worker) {
    clearTimeout(idle);
    idle = setTimeout(() => {
      if (worker !== w || waiting.size > 0) return;
      worker = undefined;
      void w.terminate();
    }, idleMs);
    idle.unref();
  }

  function thread(): Worker {
    clearTimeout(idle);
    if (worker) {
      if (waiting.size === 0) rest(worker);
      return worker;
    }
    const w = startModuleWorker(ENTRY);
    w.on("message", ({ id, signer }: { id: number; signer: string | null }) => {
      const job = waiting.get(id);
      waiting.delete(id);
      if (waiting.size === 0) rest(w);
      job?.resolve(signer ?? undefined);
    });
    w.on("error", () => lost(w));
    w.on("exit", () => lost(w));
    // The thread keeps the process alive until it is closed or ends idle (unref'ing it while idle let
    // a process exit with a check handed over, seen once under load).
    worker = w;
    rest(w);
    return w;
  }

  return {
    recover(message, signature) {
      if (closed) return Promise.resolve(recoverSigner(message, signature));
      return new Promise((resolve) => {
        const id = ++nextId;
        waiting.set(id, { id, message, signature, resolve });
        thread().postMessage({ id, message, signature } satisfies RecoverJob);
      });
    },
    warm() {
      if (!closed) thread();
    },
    running: () => worker !== undefined,
    async close() {
      closed = true;
      clearTimeout(idle);
      const w = worker;
      if (!w) return;
      lost(w);
      await w.terminate();
    },
  };
}
