// A sim exchange alone in its process, as `tradevaultd --sim-only` runs it (random feed): the
// external exchange of http-read-shared's daemons.
import { resolveConfig } from "../../daemon/config.js";
import { createSim } from "../../daemon/main.js";
import { tempDir } from "../lib/daemon-host.js";

export function serve() {
  let sim: ReturnType<typeof createSim> | undefined;
  const dir = tempDir("tradevault-bench-sim-");
  return {
    async start(): Promise<{ url: string }> {
      sim = createSim(resolveConfig({ simOnly: true, simPort: 0, dataDir: dir.path, logLevel: "silent", simFeed: "random", simWsConnectionsPerIp: 100 }), Date.now);
      await sim.start();
      return { url: sim.url };
    },
    async close() {
      await sim?.stop();
      dir.remove();
    },
  };
}
