// The set-up daemons sharing a database need, for the *-shared benchmarks: an external chain (Anvil,
// a child of this process, over HTTP: --rpc-url), an external exchange (a sim in a process of its
// own: --exchange-url), and per daemon a funded operator key of its own (each deploys its contracts)
// and, on PostgreSQL, a fresh database on the test suite's server (test/helpers/postgres.ts). Every
// worker started through the rig is stopped with it, last started first.
import { Wallet, toQuantity } from "ethers";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startEmbeddedNode, type EmbeddedNode } from "../../daemon/chain/embedded-node.js";
import { freshDatabase } from "../../test/helpers/postgres.js";
import { freePort } from "../../test/helpers/util.js";
import { tempDir, type SharedSetup } from "./daemon-host.js";
import { startWorker, type Worker } from "./worker-client.js";

export interface SharedRig {
  exchangeUrl: string;
  /** A daemon's share: its own funded operator key, on a fresh PostgreSQL database or on SQLite. */
  setup(name: string, store: "postgres" | "sqlite"): Promise<SharedSetup>;
  /** A worker stopped with the rig, with TRADEVAULT_SECRET set (a daemon on PostgreSQL needs it). */
  worker(modulePath: string, opts?: Parameters<typeof startWorker>[1]): Promise<Worker>;
  /** Anvil's resident and peak resident set, KiB (0 without /proc). */
  chainMemory(): { rssKb: number; peakKb: number };
}

const SECRET = "shared set-up: one secret for every daemon of the benchmark";

/** Starts Anvil and the sim, runs `fn` on the rig, and stops everything it started whatever happens. */
export async function withSharedRig<T>(prefix: string, fn: (rig: SharedRig) => Promise<T>): Promise<T> {
  const tmp = tempDir(prefix);
  const workers: Worker[] = [];
  let node: EmbeddedNode | undefined;
  try {
    node = await startEmbeddedNode({ socketDir: join(tmp.path, "anvil"), httpPort: await freePort(), genesisTime: Math.floor(Date.now() / 1000) });
    const chain = node;
    const worker = async (modulePath: string, opts: Parameters<typeof startWorker>[1] = {}) => {
      const w = await startWorker(modulePath, { ...opts, env: { TRADEVAULT_SECRET: SECRET, ...opts.env } });
      workers.push(w);
      return w;
    };
    const sim = await worker(new URL("../servers/sim-exchange.ts", import.meta.url).pathname);
    const { url: exchangeUrl } = await sim.call<{ url: string }>("start");
    const setup = async (name: string, store: "postgres" | "sqlite"): Promise<SharedSetup> => {
      const operator = Wallet.createRandom();
      const operatorKeyFile = join(tmp.path, `${name.replace(/\W+/g, "-")}.key`);
      writeFileSync(operatorKeyFile, operator.privateKey, { mode: 0o600 });
      await chain.rpc.request({ method: "anvil_setBalance", params: [operator.address, toQuantity(10n ** 21n)] });
      return { rpcUrl: chain.url!, exchangeUrl, operatorKeyFile, databaseUrl: store === "postgres" ? await freshDatabase() : undefined };
    };
    return await fn({ exchangeUrl, setup, worker, chainMemory: () => processMemory(chain.pid) });
  } finally {
    for (const w of workers.reverse()) await w.stop().catch(() => undefined);
    await node?.stop();
    tmp.remove();
  }
}

function processMemory(pid: number): { rssKb: number; peakKb: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    return { rssKb: Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0), peakKb: Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) };
  } catch {
    return { rssKb: 0, peakKb: 0 }; // not Linux, or already gone
  }
}
