// http-read: authenticated GET /api/vaults listing `vaults` vaults under `connections` concurrent
// connections, against a bare Koa app answering the same JSON body. Daemon and baseline each run in
// their own process; autocannon runs in this one. Runs alternate so drift hits both alike.
import { cannon, type CannonResult } from "./lib/load.js";
import { mib, type BenchResult } from "./lib/report.js";
import { profiled } from "./lib/profile.js";
import { medianOf } from "./lib/stats.js";
import { startWorker, type ProcessUsage } from "./lib/worker-client.js";

export interface HttpReadSize {
  vaults: number;
  connections: number;
  durationS: number;
  runs: number;
  warmupS: number;
}

export const HTTP_READ_FULL: HttpReadSize = { vaults: 50, connections: 64, durationS: 5, runs: 3, warmupS: 2 };

const server = (name: string) => new URL(`./servers/${name}.ts`, import.meta.url).pathname;

export async function httpRead(size: HttpReadSize = HTTP_READ_FULL): Promise<BenchResult> {
  const started = Date.now();
  const daemon = await startWorker(server("vault-list"));
  const bare = await startWorker(server("bare-koa")).catch(async (err) => {
    await daemon.stop();
    throw err;
  });
  const d: CannonResult[] = [];
  const b: CannonResult[] = [];
  let daemonCpu = 0;
  let daemonSeconds = 0;
  let daemonUsage: ProcessUsage;
  try {
    const target = await daemon.call<{ url: string; token: string; body: unknown }>("start", size.vaults);
    const baseline = await bare.call<{ url: string }>("start", target.body);
    const auth = { Authorization: `Bearer ${target.token}` };
    const load = (url: string, durationS: number, headers?: Record<string, string>) =>
      cannon({ url, connections: size.connections, durationS, headers });
    await load(`${target.url}/api/vaults`, size.warmupS, auth);
    await load(`${baseline.url}/`, size.warmupS);
    for (let i = 0; i < size.runs; i++) {
      const cpu0 = (await daemon.usage()).cpuMs;
      const t0 = Date.now();
      const run = () => load(`${target.url}/api/vaults`, size.durationS, auth);
      d.push(await (i === 0 ? profiled(daemon, "http-read-daemon", run) : run()));
      daemonSeconds += (Date.now() - t0) / 1000;
      daemonCpu += (await daemon.usage()).cpuMs - cpu0;
      b.push(await load(`${baseline.url}/`, size.durationS));
    }
  } finally {
    daemonUsage = await daemon.stop();
    await bare.stop();
  }
  const dm = medianOf(d.map(({ rps, p50, p99, failed }) => ({ rps, p50, p99, failed })));
  const bm = medianOf(b.map(({ rps, p50, p99, failed }) => ({ rps, p50, p99, failed })));
  const failed = d.reduce((n, r) => n + r.failed, 0);
  return {
    name: "http-read",
    setup: `GET /api/vaults, ${size.vaults} vaults, ${size.connections} connections, ${size.runs} x ${size.durationS} s each`,
    figures: [
      // A failed response (a 401, say) is fast: no target counts as met with any.
      { label: "requests/s", value: dm.rps, unit: "req/s", baseline: bm.rps, target: ">= 0.5x baseline", met: failed === 0 && dm.rps >= 0.5 * bm.rps },
      { label: "p50 latency", value: dm.p50, unit: "ms", baseline: bm.p50 },
      { label: "p99 latency", value: dm.p99, unit: "ms", baseline: bm.p99, target: "< 20 ms", met: failed === 0 && dm.p99 < 20 },
    ],
    peakRssMb: mib(daemonUsage.maxRssKb),
    notes: [
      `${d.reduce((n, r) => n + r.total, 0)} daemon responses, ${failed} failed (non-2xx, errors, timeouts).`,
      `Daemon CPU while loaded: ${Math.round((daemonCpu / 1000 / daemonSeconds) * 100)}% of one core (the load generator has the other core).`,
      "The oracle loop is off (startOracle: false) so that its exchange reads do not land inside a run.",
    ],
    seconds: (Date.now() - started) / 1000,
  };
}
