// Daemon side of soak: a daemon on the embedded chain (Anvil) with N vaults, driven through oracle
// cycles back to back; reports its own and Anvil's RSS, the database and snapshot sizes, and restarts
// itself on the same data directory to time the way back to an answering /healthz.
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { Wallet } from "ethers";
import { snapshotsOf } from "../../daemon/db/chain-repo.js";
import { createVaults, hostDaemon, tempDir, type HostedDaemon } from "../lib/daemon-host.js";
import { sqliteHandle } from "../../daemon/db/sqlite-store.js";

export interface SoakSample {
  cycle: number;
  daemonRssMb: number;
  anvilRssMb: number;
  dbBytes: number;
  snapshotBytes: number;
  height: number;
  cycleMsMax: number;
  cycleMsMedian: number;
  cycleMsP99: number;
  /** Cycles of this sample's window that took a second or more. */
  cyclesOver1s: number;
}

const rssMbOf = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024;
const size = (p: string) => statSync(p, { throwIfNoEntry: false })?.size ?? 0;

export function serve() {
  const dir = tempDir("tradevault-soak-");
  let hosted: HostedDaemon | undefined;
  let cycles = 0;
  const config = { oracleInterval: 1, staleAfter: 120, chainSnapshotInterval: 60 };
  const d = () => hosted!.daemon;

  return {
    async start(vaults: number): Promise<void> {
      hosted = await hostDaemon({ dataDir: dir.path, config });
      await createVaults(d(), Wallet.createRandom(), vaults, { parallel: 50 });
    },
    /** `n` oracle cycles back to back, then one sample. */
    async run(n: number): Promise<SoakSample> {
      const ms: number[] = [];
      for (let i = 0; i < n; i++) {
        const t = process.hrtime.bigint();
        await d().oracle.cycle();
        ms.push(Number(process.hrtime.bigint() - t) / 1e6);
        cycles++;
      }
      sqliteHandle(d().store).pragma("wal_checkpoint(TRUNCATE)");
      const db = join(dir.path, "tradevault-sim.db");
      const [snap] = await snapshotsOf(d().store.db, d().chain.key);
      ms.sort((a, b) => a - b);
      return {
        cycle: cycles, daemonRssMb: process.memoryUsage().rss / 1024 / 1024, anvilRssMb: rssMbOf(d().chain.embedded!.pid()),
        dbBytes: size(db) + size(`${db}-wal`), snapshotBytes: snap?.bytes ?? 0, height: await d().chain.provider.getBlockNumber(),
        cycleMsMax: ms.at(-1) ?? 0, cycleMsMedian: ms[Math.floor(ms.length / 2)] ?? 0,
        cycleMsP99: ms[Math.min(ms.length - 1, Math.floor(ms.length * 0.99))] ?? 0, cyclesOver1s: ms.filter((x) => x >= 1_000).length,
      };
    },
    /** Stops the daemon (a clean stop: last snapshot) and starts it again on the same directory; ms to /healthz answering. */
    async restart(): Promise<number> {
      await hosted!.close();
      const t = Date.now();
      hosted = await hostDaemon({ dataDir: dir.path, config });
      const res = await fetch(`${d().url}/healthz`);
      await res.arrayBuffer();
      return Date.now() - t;
    },
    async close() {
      await hosted?.close();
      dir.remove();
    },
  };
}
