// http-read: authenticated GET /api/vaults, for a wallet with no vault and for one trading `vaults`
// vaults, under `connections` concurrent connections, against a bare Koa app answering the same JSON
// bodies. The daemon (embedded defaults: the sim with its random feed, the embedded chain) and the
// baseline each run in their own process; autocannon runs in this one. Each round measures both
// servers back to back, in alternating order, so drift hits both alike; the figure is the median
// round and the notes give every round's ratio (the spread).
import { fmt, mib, type BenchResult, type Figure } from "./lib/report.js";
import { cannon, type CannonResult } from "./lib/load.js";
import { profiled } from "./lib/profile.js";
import { median, medianOf } from "./lib/stats.js";
import { startWorker, type ProcessUsage } from "./lib/worker-client.js";
import type { VaultListTarget } from "./servers/vault-list.js";

export interface HttpReadSize {
  vaults: number;
  connections: number;
  durationS: number;
  runs: number;
  warmupS: number;
}

export const HTTP_READ_FULL: HttpReadSize = { vaults: 50, connections: 64, durationS: 5, runs: 5, warmupS: 2 };

type Case = keyof VaultListTarget["cases"];
const CASES: Case[] = ["empty", "full"];

const server = (name: string) => new URL(`./servers/${name}.ts`, import.meta.url).pathname;

interface Round {
  daemon: CannonResult;
  bare: CannonResult;
}

export async function httpRead(size: HttpReadSize = HTTP_READ_FULL): Promise<BenchResult> {
  const started = Date.now();
  const daemon = await startWorker(server("vault-list"));
  const bare = await startWorker(server("bare-koa")).catch(async (err) => {
    await daemon.stop();
    throw err;
  });
  const rounds: Record<Case, Round[]> = { empty: [], full: [] };
  let daemonCpu = 0;
  let daemonSeconds = 0;
  /** CPU time each server spent per response (µs), summed over the timed runs: less swayed by a busy machine than req/s. */
  const cpu = Object.fromEntries(CASES.map((c) => [c, { daemon: { ms: 0, n: 0 }, bare: { ms: 0, n: 0 } }])) as Record<Case, Record<"daemon" | "bare", { ms: number; n: number }>>;
  let daemonUsage: ProcessUsage;
  try {
    const target = await daemon.call<VaultListTarget>("start", size.vaults);
    const baseline = await bare.call<{ url: string }>("start", { "/empty": target.cases.empty.body, "/full": target.cases.full.body });
    const cannonAt = (c: Case, who: "daemon" | "bare", durationS: number) =>
      who === "daemon"
        ? cannon({ url: `${target.url}/api/vaults`, connections: size.connections, durationS, headers: { Authorization: `Bearer ${target.cases[c].token}` } })
        : cannon({ url: `${baseline.url}/${c}`, connections: size.connections, durationS });
    const load = async (c: Case, who: "daemon" | "bare", durationS: number, counted = true) => {
      const worker = who === "daemon" ? daemon : bare;
      const cpu0 = (await worker.usage()).cpuMs;
      const r = await cannonAt(c, who, durationS);
      if (counted) {
        cpu[c][who].ms += (await worker.usage()).cpuMs - cpu0;
        cpu[c][who].n += r.total;
      }
      return r;
    };
    for (const c of CASES) for (const who of ["daemon", "bare"] as const) await load(c, who, size.warmupS, false);
    for (let i = 0; i < size.runs; i++) {
      for (const c of CASES) {
        const timedDaemon = async () => {
          const cpu0 = (await daemon.usage()).cpuMs;
          const t0 = Date.now();
          const run = () => load(c, "daemon", size.durationS);
          const r = await (i === 0 ? profiled(daemon, `http-read-daemon-${c}`, run) : run());
          daemonSeconds += (Date.now() - t0) / 1000;
          daemonCpu += (await daemon.usage()).cpuMs - cpu0;
          return r;
        };
        // Alternate which server goes first, so a load that builds up in a round is shared out.
        if (i % 2 === 0) rounds[c].push({ daemon: await timedDaemon(), bare: await load(c, "bare", size.durationS) });
        else {
          const b = await load(c, "bare", size.durationS);
          rounds[c].push({ bare: b, daemon: await timedDaemon() });
        }
      }
    }
  } finally {
    daemonUsage = await daemon.stop();
    await bare.stop();
  }
  const failed = CASES.reduce((n, c) => n + rounds[c].reduce((m, r) => m + r.daemon.failed, 0), 0);
  const total = CASES.reduce((n, c) => n + rounds[c].reduce((m, r) => m + r.daemon.total, 0), 0);
  return {
    name: "http-read",
    setup: `GET /api/vaults, 0 and ${size.vaults} vaults, ${size.connections} connections, ${size.runs} rounds x ${size.durationS} s each`,
    figures: CASES.flatMap((c) => figures(c === "empty" ? "no vaults" : `${size.vaults} vaults`, rounds[c], failed)),
    peakRssMb: mib(daemonUsage.maxRssKb),
    notes: [
      ...CASES.map((c) => `${c === "empty" ? "No vaults" : `${size.vaults} vaults`}: ratio per round ${rounds[c].map((r) => `${fmt(r.daemon.rps / r.bare.rps)}x`).join(", ")} (daemon ${rounds[c].map((r) => fmt(r.daemon.rps)).join(", ")} req/s; p99 ${rounds[c].map((r) => fmt(r.daemon.p99)).join(", ")} ms).`),
      `${total} daemon responses, ${failed} failed (non-2xx, errors, timeouts).`,
      ...CASES.map((c) => `CPU per response, ${c === "empty" ? "no vaults" : `${size.vaults} vaults`}: daemon ${fmt(perResponse(cpu[c].daemon))} µs, bare Koa ${fmt(perResponse(cpu[c].bare))} µs.`),
      `Daemon CPU while loaded: ${Math.round((daemonCpu / 1000 / daemonSeconds) * 100)}% of one core (the load generator has the other core).`,
      "The daemon runs the embedded defaults (sim with its random feed, embedded chain); the oracle loop is off (startOracle: false) so that a cycle's exchange reads do not land inside one run.",
    ],
    seconds: (Date.now() - started) / 1000,
  };
}

const perResponse = (u: { ms: number; n: number }) => (u.ms * 1000) / u.n;

/** The median round's figures for one case; the ratio is the median of the rounds' own ratios. */
function figures(label: string, rounds: Round[], failed: number): Figure[] {
  const dm = medianOf(rounds.map(({ daemon: { rps, p50, p99 } }) => ({ rps, p50, p99 })));
  const bm = medianOf(rounds.map(({ bare: { rps, p50, p99 } }) => ({ rps, p50, p99 })));
  const ratio = median(rounds.map((r) => r.daemon.rps / r.bare.rps));
  // A failed response (a 401, say) is fast: no target counts as met with any.
  return [
    { label: `requests/s, ${label}`, value: dm.rps, unit: "req/s", baseline: bm.rps, ratio: `${fmt(ratio)}x`, target: ">= 0.8x baseline", met: failed === 0 && ratio >= 0.8 },
    { label: `p50 latency, ${label}`, value: dm.p50, unit: "ms", baseline: bm.p50 },
    { label: `p99 latency, ${label}`, value: dm.p99, unit: "ms", baseline: bm.p99, target: "< 10 ms", met: failed === 0 && dm.p99 < 10 },
  ];
}
