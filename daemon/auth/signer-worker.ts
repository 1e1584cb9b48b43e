// Worker-thread entry (signer-pool.ts): sign-in's signature check, one message at a time, off the
// daemon's event loop.
import { parentPort } from "node:worker_threads";
import { recoverSigner } from "./signer.js";

export interface RecoverJob {
  id: number;
  message: string;
  signature: string;
}

parentPort!.on("message", ({ id, message, signature }: RecoverJob) => {
  parentPort!.postMessage({ id, signer: recoverSigner(message, signature) ?? null });
});
