// scale-out, writes: orders a second (POST /api/trade, a resting bid: two writes to the database
// around the exchange's answer) through 1, 2 and 3 daemons at once, each with `connections` traders
// of its own sending one order after another, the budget open. Report only: on 2 cores the daemons,
// the sim and PostgreSQL share the same CPU, so more daemons cannot show their gain here; what the
// figure shows is whether daemons writing at once wait for each other.
import { httpClient } from "./lib/load.js";
import type { ClusterRig } from "./lib/cluster-rig.js";
import { orderViaDaemon, remoteTrader } from "./lib/order-legs.js";
import { progress } from "./lib/report.js";

export interface WritesSize {
  /** Traders per daemon, each one order at a time. */
  connections: number;
  durationS: number;
  runs: number;
}

export interface WritesRun {
  daemons: number;
  ordersPerS: number;
  failed: number;
}

/** Each daemon count in turn, `runs` times; fresh traders per run (the sim's margin check walks open orders). */
export async function writes(rig: ClusterRig, simUrl: string, most: number, size: WritesSize): Promise<WritesRun[]> {
  await rig.proxies.call("budget", "open");
  const runs: WritesRun[] = [];
  try {
    const ds = [];
    for (let i = 0; i < most; i++) ds.push(await rig.start(i));
    for (let r = 0; r < size.runs; r++) {
      for (let n = 1; n <= most; n++) {
        progress(`writes: ${n} daemon${n > 1 ? "s" : ""}, run ${r + 1}`);
        const legs = await Promise.all(ds.slice(0, n).flatMap((d) => Array.from({ length: size.connections }, async () => {
          const client = httpClient(d.url);
          return { client, order: orderViaDaemon(client, await remoteTrader(d.url, simUrl)) };
        })));
        let done = 0;
        let failed = 0;
        const until = Date.now() + size.durationS * 1000;
        const started = Date.now();
        await Promise.all(legs.map(async (leg) => {
          while (Date.now() < until) {
            try {
              await leg.order();
              done++;
            } catch {
              failed++;
            }
          }
        }));
        runs.push({ daemons: n, ordersPerS: done / ((Date.now() - started) / 1000), failed });
        for (const leg of legs) leg.client.close();
      }
    }
    return runs;
  } finally {
    await rig.stopAll();
  }
}
