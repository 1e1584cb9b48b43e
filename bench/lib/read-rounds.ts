// The measuring part of http-read: GET /api/vaults on each daemon and the same bodies on a bare Koa
// process, per case (no vaults, `vaults` vaults), round after round. Within a round every server
// runs once per case, starting one place further along each round, so drift hits them all alike.
// The CPU each process spent per response is summed too: a busy machine sways it less than req/s.
import { cannon, type CannonResult } from "./load.js";
import { fmt, type Figure } from "./report.js";
import { profiled } from "./profile.js";
import { median, medianOf } from "./stats.js";
import type { Worker } from "./worker-client.js";
import type { VaultListTarget } from "../servers/vault-list.js";

export interface ReadSize {
  vaults: number;
  connections: number;
  durationS: number;
  runs: number;
  warmupS: number;
}

export type Case = keyof VaultListTarget["cases"];
export const CASES: Case[] = ["empty", "full"];

export interface Server {
  name: string;
  worker: Worker;
  /** GET this for a case, with these headers. */
  request(c: Case): { url: string; headers?: Record<string, string> };
}

export interface Measured {
  name: string;
  runs: Record<Case, CannonResult[]>;
  cpuUs: Record<Case, number>;
}

export const daemonServer = (name: string, worker: Worker, t: VaultListTarget): Server => ({
  name, worker, request: (c) => ({ url: `${t.url}/api/vaults`, headers: { Authorization: `Bearer ${t.cases[c].token}` } }),
});

export const bareServer = (worker: Worker, url: string): Server => ({ name: "bare Koa", worker, request: (c) => ({ url: `${url}/${c}` }) });

/** Runs the rounds; the first round of each daemon (not the baseline, the last server) is profiled under BENCH_PROFILE. */
export async function readRounds(servers: Server[], size: ReadSize): Promise<Measured[]> {
  const out = servers.map((s) => ({ name: s.name, runs: { empty: [], full: [] } as Record<Case, CannonResult[]>, cpu: { empty: { ms: 0, n: 0 }, full: { ms: 0, n: 0 } } }));
  const load = async (i: number, c: Case, durationS: number, counted: boolean) => {
    const s = servers[i]!;
    const cpu0 = (await s.worker.usage()).cpuMs;
    const r = await cannon({ ...s.request(c), connections: size.connections, durationS });
    if (counted) {
      out[i]!.cpu[c].ms += (await s.worker.usage()).cpuMs - cpu0;
      out[i]!.cpu[c].n += r.total;
    }
    return r;
  };
  for (const c of CASES) for (let i = 0; i < servers.length; i++) await load(i, c, size.warmupS, false);
  for (let round = 0; round < size.runs; round++) {
    for (const c of CASES) {
      for (let k = 0; k < servers.length; k++) {
        const i = (k + round) % servers.length;
        const run = () => load(i, c, size.durationS, true);
        const profileIt = round === 0 && i < servers.length - 1;
        out[i]!.runs[c].push(await (profileIt ? profiled(servers[i]!.worker, `http-read-${servers[i]!.name.replace(/\W+/g, "-")}-${c}`, run) : run()));
      }
    }
  }
  return out.map((o) => ({ name: o.name, runs: o.runs, cpuUs: { empty: (o.cpu.empty.ms * 1000) / o.cpu.empty.n, full: (o.cpu.full.ms * 1000) / o.cpu.full.n } }));
}

const caseLabel = (c: Case, vaults: number) => (c === "empty" ? "no vaults" : `${vaults} vaults`);
const failedOf = (m: Measured) => CASES.reduce((n, c) => n + m.runs[c].reduce((k, r) => k + r.failed, 0), 0);

/** A daemon's figures beside the baseline's: the median round, the ratio the median of the rounds' own. */
export function readFigures(d: Measured, bare: Measured, vaults: number, prefix = ""): Figure[] {
  const failed = failedOf(d);
  return CASES.flatMap((c) => {
    const label = `${prefix}${caseLabel(c, vaults)}`;
    const dm = medianOf(d.runs[c].map(({ rps, p50, p99 }) => ({ rps, p50, p99 })));
    const bm = medianOf(bare.runs[c].map(({ rps, p50, p99 }) => ({ rps, p50, p99 })));
    const ratio = median(d.runs[c].map((r, i) => r.rps / bare.runs[c][i]!.rps));
    // A failed response (a 401, say) is fast: no target counts as met with any.
    return [
      { label: `requests/s, ${label}`, value: dm.rps, unit: "req/s", baseline: bm.rps, ratio: `${fmt(ratio)}x`, target: ">= 0.8x baseline", met: failed === 0 && ratio >= 0.8 },
      { label: `p50 latency, ${label}`, value: dm.p50, unit: "ms", baseline: bm.p50 },
      { label: `p99 latency, ${label}`, value: dm.p99, unit: "ms", baseline: bm.p99, target: "< 10 ms", met: failed === 0 && dm.p99 < 10 },
    ];
  });
}

/** Every round's ratio and p99 (the spread), the CPU per response, and failures. */
export function readNotes(d: Measured, bare: Measured, vaults: number): string[] {
  return [
    ...CASES.map((c) => `${d.name}, ${caseLabel(c, vaults)}: ratio per round ${d.runs[c].map((r, i) => `${fmt(r.rps / bare.runs[c][i]!.rps)}x`).join(", ")} (${d.runs[c].map((r) => fmt(r.rps)).join(", ")} req/s; p99 ${d.runs[c].map((r) => fmt(r.p99)).join(", ")} ms); CPU per response ${fmt(d.cpuUs[c])} µs, bare Koa ${fmt(bare.cpuUs[c])} µs.`),
    `${d.name}: ${CASES.reduce((n, c) => n + d.runs[c].reduce((k, r) => k + r.total, 0), 0)} responses, ${failedOf(d)} failed (non-2xx, errors, timeouts).`,
  ];
}
