// Worker-thread entry (lib/module-worker.ts): compacts one Anvil dump off the daemon's event loop. A
// dump carries every kept transaction's execution trace (about 230 kB per oracle batch of 100 vaults),
// so parsing it on the main thread held oracle cycles and requests for up to a second and a half.
import { parentPort, workerData } from "node:worker_threads";
import { compactDump, type CompactJob } from "./anvil-state.js";

const { input } = workerData as { input: CompactJob };
parentPort!.postMessage(compactDump(input));
