// http-read-shared: http-read on the set-up daemons sharing a database need (an external chain with
// --rpc-url, an external sim with --exchange-url), once on a PostgreSQL database and once on SQLite,
// both daemons up at once and measured in the same rounds against one bare Koa process. Anvil runs as
// a child of this process, the sim, each daemon and the baseline in processes of their own;
// PostgreSQL is the test suite's server (test/helpers/postgres.ts), a fresh database on it.
import { serverPath } from "./http-read.js";
import { bareServer, daemonServer, readFigures, readNotes, readRounds, type ReadSize } from "./lib/read-rounds.js";
import { mib, type BenchResult } from "./lib/report.js";
import { withSharedRig } from "./lib/shared-setup.js";
import type { VaultListTarget } from "./servers/vault-list.js";

export const HTTP_READ_SHARED_FULL: ReadSize = { vaults: 50, connections: 64, durationS: 5, runs: 3, warmupS: 2 };

export async function httpReadShared(size: ReadSize = HTTP_READ_SHARED_FULL): Promise<BenchResult> {
  const started = Date.now();
  return withSharedRig("tradevault-bench-shared-", async (rig) => {
    const daemonOn = async (name: string, store: "postgres" | "sqlite") => {
      const w = await rig.worker(serverPath("vault-list"));
      const target = await w.call<VaultListTarget>("start", size.vaults, await rig.setup(name, store));
      return { server: daemonServer(name, w, target), target };
    };
    const pg = await daemonOn("PostgreSQL", "postgres");
    const lite = await daemonOn("SQLite", "sqlite");
    const bare = await rig.worker(serverPath("bare-koa"));
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
  });
}
