// Runs one of our modules in a worker thread, for a single job or for as long as it is needed, from
// the sources (tests and benchmarks run through tsx) or from dist/ alike. A worker does not inherit
// tsx's loader, so the bootstrap registers it when the module is TypeScript. Used for work that would
// otherwise hold the event loop while requests and oracle cycles wait: parsing a large chain dump (a
// second or more), sign-in's signature checks (about 2 ms each, in bursts).
import { Worker } from "node:worker_threads";
import { AppError } from "../errors.js";

const BOOT = `
const { workerData } = require("node:worker_threads");
(async () => {
  if (workerData.tsx) (await import(workerData.tsx)).register();
  await import(workerData.entry);
})();`;

/** A worker thread running `entry` (TypeScript through tsx, or JavaScript from dist/), given `input` as workerData.input. */
export function startModuleWorker<I>(entry: URL, input?: I): Worker {
  const tsx = entry.pathname.endsWith(".ts") ? import.meta.resolve("tsx/esm/api") : null;
  return new Worker(BOOT, { eval: true, workerData: { entry: entry.href, tsx, input } });
}

/** Starts `entry` in a worker with `input`; resolves with its one reply, rejects if it fails or ends without one. */
export function runInWorker<I, O>(entry: URL, input: I): Promise<O> {
  return new Promise<O>((resolve, reject) => {
    let settled = false;
    const worker = startModuleWorker(entry, input);
    worker.once("message", (out: O) => {
      settled = true;
      resolve(out);
      void worker.terminate();
    });
    worker.once("error", (e) => {
      settled = true;
      reject(e);
    });
    worker.once("exit", (code) => {
      if (!settled) reject(new AppError("INTERNAL", `worker ${entry.pathname} ended (code ${code}) without an answer`));
    });
  });
}
