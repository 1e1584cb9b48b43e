// cluster-faults: the fault test's scenario (test/cluster/fault-scenario.ts) run longer, several
// rounds of every fault (SIGSTOP longer than a lease, one of them caught in a transaction; SIGKILL and
// restart; PostgreSQL stopped and started) under traffic on three built daemons, and what each cost:
// failover (a member's stall or death to each of its vaults' next balance write by another daemon),
// freeze (the longest time no balance was written while a daemon was healthy), sign-in latency on
// the healthy daemons during a stall, and the time the cluster took to write every vault again after
// the database came back. The checker's rules are counted too (each should be 0).
import { checkStall, measureFault, percentile, SIGN_IN_P99_MS, type FaultFigures } from "../test/cluster/fault-measures.js";
import { runFaultScenario, type FaultKind } from "../test/cluster/fault-scenario.js";
import { checkHistory, type History } from "../test/cluster/history-checker.js";
import { fmt, mib, progress, type BenchResult, type Figure } from "./lib/report.js";

export interface ClusterFaultsSize {
  /** Each round makes every fault once, in a seeded order. */
  rounds: number;
  vaults: number;
  extraVaults: number;
  intervalS: number;
  stallIntervals: [number, number];
  dbOutageS: [number, number];
  /** Which faults a round makes (all four unless the size says fewer). */
  kinds?: FaultKind[];
  seed?: number;
}

export const CLUSTER_FAULTS_FULL: ClusterFaultsSize = { rounds: 3, vaults: 12, extraVaults: 4, intervalS: 2, stallIntervals: [4, 10], dbOutageS: [5, 20] };

const ALL: FaultKind[] = ["stall", "caught-stall", "kill", "db"];

export async function clusterFaults(size: ClusterFaultsSize = CLUSTER_FAULTS_FULL): Promise<BenchResult> {
  const started = Date.now();
  const seed = size.seed ?? (process.env.TEST_SEED ? Number(process.env.TEST_SEED) : Math.floor(Math.random() * 2 ** 31));
  const kinds = size.kinds ?? ALL;
  const run = await runFaultScenario({
    seed, intervalS: size.intervalS, vaults: size.vaults, extraVaults: size.extraVaults,
    faults: Array.from({ length: size.rounds }, () => kinds).flat(), stallIntervals: size.stallIntervals, dbOutageS: size.dbOutageS, gapS: [2, 10],
  }, progress);
  const h = run.history;
  const measured = h.faults.map((f) => measureFault(h, f));
  const stalls = measured.filter((m) => m.fault.kind === "stall");
  const kills = measured.filter((m) => m.fault.kind === "kill");
  const violations = checkHistory(h);
  const broken = violations.reduce((n, r) => n + r.violations.length, 0);
  const stallProblems = stalls.flatMap((s) => checkStall(s, h.intervalS));
  const signIns = stalls.flatMap((s) => s.signInMs);
  const figures: Figure[] = [
    ...failoverFigures("SIGSTOP", stalls),
    ...failoverFigures("SIGKILL", kills),
    { label: "freeze during a stall, longest", value: Math.max(0, ...stalls.map((s) => s.freezeMs)) / 1000, unit: "s", target: `< ${fmt(1.5 * h.intervalS + 2 * h.intervalS)} s (lease + 2 intervals)`, met: stalls.every((s) => s.freezeMs < 3.5 * h.intervalS * 1000) },
    { label: "sign-in p99 on the healthy daemons during a stall", value: percentile(signIns, 99), unit: "ms", target: `< ${SIGN_IN_P99_MS} ms`, met: percentile(signIns, 99) < SIGN_IN_P99_MS },
    ...(kinds.includes("db") ? [{ label: "every vault written again after PostgreSQL is back, longest", value: Math.max(...h.faults.filter((f) => f.kind === "db").map((f) => afterOutageMs(h, f.toMs))) / 1000, unit: "s" }] : []),
    { label: "history rules broken", value: broken, unit: "", target: "0", met: broken === 0 },
    { label: "daemons that exited by themselves", value: run.exits.length, unit: "", target: "0", met: run.exits.length === 0 },
  ];
  return {
    name: "cluster-faults",
    setup: `3 daemons, ${size.vaults}+${size.extraVaults} vaults, oracle every ${size.intervalS} s, ${size.rounds} round(s) of ${kinds.join(", ")}, seed ${seed}`,
    figures, peakRssMb: mib(run.peakRssKb),
    notes: [
      ...run.log,
      ...measured.map(describe),
      ...violations.filter((r) => r.violations.length > 0).map((r) => `${r.rule}: ${r.violations.length} (${r.violations.slice(0, 3).join("; ")})`),
      ...stallProblems.slice(0, 6),
    ],
    seconds: (Date.now() - started) / 1000,
  };
}

function failoverFigures(what: string, ms: FaultFigures[]): Figure[] {
  const all = ms.flatMap((m) => m.failoverMs);
  if (all.length === 0) return [];
  // A vault never written by another daemon before the fault ended counts as the fault's whole length.
  const bounded = ms.flatMap((m) => m.failoverMs.map((x) => (Number.isFinite(x) ? x : m.fault.toMs - m.fault.fromMs)));
  return [
    { label: `failover after ${what}, p50`, value: percentile(bounded, 50) / 1000, unit: "s" },
    { label: `failover after ${what}, max`, value: Math.max(...bounded) / 1000, unit: "s" },
  ];
}

/** From PostgreSQL's return to the last vault's first balance written after it. */
function afterOutageMs(h: History, backMs: number): number {
  const vaults = new Set(h.writes.filter((w) => w.seenMs < backMs).map((w) => w.vault));
  const first = [...vaults].map((v) => h.writes.find((w) => w.vault === v && w.seenMs > backMs)?.seenMs ?? Infinity);
  return Math.max(...first) - backMs;
}

function describe(m: FaultFigures): string {
  const f = m.fault;
  const finite = m.failoverMs.filter(Number.isFinite);
  if (f.kind === "db") return `PostgreSQL stopped for ${fmt((f.toMs - f.fromMs) / 1000)} s: ${m.signInFailures} sign-ins failed meanwhile`;
  return `${f.kind}${f.daemon === undefined ? "" : ` of daemon ${f.daemon}`}${f.caught ? " (caught in a transaction)" : ""} for ${fmt((f.toMs - f.fromMs) / 1000)} s: ` +
    `${m.victimVaults.length} vaults, failover p50 ${fmt(percentile(finite, 50) / 1000)} s, max ${finite.length < m.failoverMs.length ? "never" : `${fmt(Math.max(...finite) / 1000)} s`}; ` +
    `leases out ${fmt((m.leasesExpireMs - f.fromMs) / 1000)} s after; longest with no balance written ${fmt(m.freezeMs / 1000)} s; ` +
    `sign-ins on the others ${m.signInMs.length}, p99 ${fmt(percentile(m.signInMs, 99))} ms${m.signInFailures ? `, ${m.signInFailures} failed` : ""}`;
}
