// http-read-shared: http-read on the set-up daemons sharing a database need (an external chain with
// --rpc-url, an external sim with --exchange-url), once on a PostgreSQL database and once on SQLite,
// both daemons up at once and measured in the same rounds against one bare Koa process. Anvil runs as
// a child of this process, the sim, each daemon and the baseline in processes of their own;
// PostgreSQL is the test suite's server (test/helpers/postgres.ts), a fresh database on it.
import { Wallet, toQuantity } from "ethers";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createServer } from "node:net";
import { startEmbeddedNode, type EmbeddedNode } from "../daemon/chain/embedded-node.js";
import { freshDatabase } from "../test/helpers/postgres.js";
import { serverPath } from "./http-read.js";
import { tempDir } from "./lib/daemon-host.js";
import { bareServer, daemonServer, readFigures, readNotes, readRounds, type ReadSize } from "./lib/read-rounds.js";
import { mib, type BenchResult } from "./lib/report.js";
import { startWorker, type Worker } from "./lib/worker-client.js";
import type { SharedSetup, VaultListTarget } from "./servers/vault-list.js";

export const HTTP_READ_SHARED_FULL: ReadSize = { vaults: 50, connections: 64, durationS: 5, runs: 3, warmupS: 2 };

const SECRET = "http-read-shared: one secret for the daemon on the shared database";

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

export async function httpReadShared(size: ReadSize = HTTP_READ_SHARED_FULL): Promise<BenchResult> {
  const started = Date.now();
  const tmp = tempDir("tradevault-bench-shared-");
  const workers: Worker[] = [];
  let node: EmbeddedNode | undefined;
  try {
    node = await startEmbeddedNode({ socketDir: join(tmp.path, "anvil"), httpPort: await freePort(), genesisTime: Math.floor(Date.now() / 1000) });
    const sim = await startWorker(serverPath("sim-exchange"));
    workers.push(sim);
    const { url: exchangeUrl } = await sim.call<{ url: string }>("start");
    /** A funded operator key of its own per daemon: each deploys its contracts. */
    const operatorKey = async (name: string) => {
      const operator = Wallet.createRandom();
      const file = join(tmp.path, `${name}.key`);
      writeFileSync(file, operator.privateKey, { mode: 0o600 });
      await node!.rpc.request({ method: "anvil_setBalance", params: [operator.address, toQuantity(10n ** 21n)] });
      return file;
    };
    const daemonOn = async (name: string, databaseUrl?: string) => {
      const w = await startWorker(serverPath("vault-list"), { env: { TRADEVAULT_SECRET: SECRET } });
      workers.push(w);
      const shared: SharedSetup = { rpcUrl: node!.url!, exchangeUrl, operatorKeyFile: await operatorKey(name), databaseUrl };
      const target = await w.call<VaultListTarget>("start", size.vaults, shared);
      return { server: daemonServer(name, w, target), target };
    };
    const pg = await daemonOn("PostgreSQL", await freshDatabase());
    const lite = await daemonOn("SQLite");
    const bare = await startWorker(serverPath("bare-koa"));
    workers.push(bare);
    // The SQLite daemon's bodies: the PostgreSQL one's differ only in the vaults' addresses.
    const baseline = await bare.call<{ url: string }>("start", { "/empty": lite.target.cases.empty.body, "/full": lite.target.cases.full.body });
    const [p, l, b] = await readRounds([pg.server, lite.server, bareServer(bare, baseline.url)], size);
    const usage = await pg.server.worker.usage();
    return {
      name: "http-read-shared",
      setup: `GET /api/vaults, 0 and ${size.vaults} vaults, ${size.connections} connections, ${size.runs} rounds x ${size.durationS} s each; external Anvil and sim; PostgreSQL and SQLite daemons side by side`,
      figures: [...readFigures(p!, b!, size.vaults, "PostgreSQL, "), ...readFigures(l!, b!, size.vaults, "SQLite, ")],
      peakRssMb: mib(usage.maxRssKb),
      notes: [
        ...readNotes(p!, b!, size.vaults),
        ...readNotes(l!, b!, size.vaults),
        "Both daemons use --rpc-url (Anvil over HTTP), --exchange-url (a sim in its own process, random feed) and the price stream; the oracle loop is off. Peak RSS is the PostgreSQL daemon's.",
      ],
      seconds: (Date.now() - started) / 1000,
    };
  } finally {
    for (const w of workers.reverse()) await w.stop().catch(() => undefined);
    await node?.stop();
    tmp.remove();
  }
}
