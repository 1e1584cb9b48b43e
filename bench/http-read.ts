// http-read: authenticated GET /api/vaults, for a wallet with no vault and for one trading `vaults`
// vaults, under `connections` concurrent connections, against a bare Koa app answering the same JSON
// bodies. The daemon (embedded defaults: the sim with its random feed, the embedded chain) and the
// baseline each run in their own process; autocannon runs in this one (lib/read-rounds.ts).
import { mib, type BenchResult } from "./lib/report.js";
import { bareServer, daemonServer, readFigures, readNotes, readRounds, type ReadSize } from "./lib/read-rounds.js";
import { startWorker, type ProcessUsage } from "./lib/worker-client.js";
import type { VaultListTarget } from "./servers/vault-list.js";

export type HttpReadSize = ReadSize;

export const HTTP_READ_FULL: HttpReadSize = { vaults: 50, connections: 64, durationS: 5, runs: 5, warmupS: 2 };

export const serverPath = (name: string) => new URL(`./servers/${name}.ts`, import.meta.url).pathname;

export async function httpRead(size: HttpReadSize = HTTP_READ_FULL): Promise<BenchResult> {
  const started = Date.now();
  const daemon = await startWorker(serverPath("vault-list"));
  const bare = await startWorker(serverPath("bare-koa")).catch(async (err) => {
    await daemon.stop();
    throw err;
  });
  let daemonUsage: ProcessUsage;
  let measured;
  try {
    const target = await daemon.call<VaultListTarget>("start", size.vaults);
    const baseline = await bare.call<{ url: string }>("start", { "/empty": target.cases.empty.body, "/full": target.cases.full.body });
    measured = await readRounds([daemonServer("daemon", daemon, target), bareServer(bare, baseline.url)], size);
  } finally {
    daemonUsage = await daemon.stop();
    await bare.stop();
  }
  const [d, b] = measured as [typeof measured[0], typeof measured[0]];
  return {
    name: "http-read",
    setup: `GET /api/vaults, 0 and ${size.vaults} vaults, ${size.connections} connections, ${size.runs} rounds x ${size.durationS} s each`,
    figures: readFigures(d, b, size.vaults),
    peakRssMb: mib(daemonUsage.maxRssKb),
    notes: [
      ...readNotes(d, b, size.vaults),
      "The daemon runs the embedded defaults (sim with its random feed and the price stream, embedded chain), logging silenced; the oracle loop is off (startOracle: false) so that a cycle's exchange reads do not land inside one run.",
    ],
    seconds: (Date.now() - started) / 1000,
  };
}
