// oracle-scale-shared: oracle-scale's cycle (daemon.oracle.cycle(): read every active vault on the
// exchange, write the readings on-chain in batches, store the events) on the set-up daemons sharing a
// database need (lib/shared-setup.ts: Anvil over --rpc-url, a sim over --exchange-url, whose daemons
// run without a weight limiter, as on the embedded sim): a daemon on PostgreSQL beside one on SQLite,
// each in its own worker (servers/oracle-lab.ts), grown to the same vault counts. At each count both
// run one cold cycle (it also reads each new vault's ledger and fills), then `cycles` timed ones,
// alternating which goes first; a figure is the median of the timed ones.
import { fmt, mib, type BenchResult, type Figure } from "./lib/report.js";
import { withSharedRig, type SharedRig } from "./lib/shared-setup.js";
import { median } from "./lib/stats.js";
import type { Worker } from "./lib/worker-client.js";
import type { CycleCost } from "./servers/oracle-lab.js";

export interface OracleScaleSharedSize {
  vaults: number[];
  /** Timed cycles per vault count, after the cold one. */
  cycles: number;
}

export const ORACLE_SCALE_SHARED_FULL: OracleScaleSharedSize = { vaults: [10, 100, 1000], cycles: 3 };

interface Step {
  vaults: number;
  growSeconds: number;
  cold: CycleCost;
  cycles: CycleCost[];
  /** The worker's RSS after the cycles, MiB. */
  rss: number;
}

interface Lab {
  name: string;
  worker: Worker;
  steps: Step[];
  peakMb: number;
}

async function startLab(rig: SharedRig, name: string, store: "postgres" | "sqlite"): Promise<Lab> {
  const worker = await rig.worker(new URL("./servers/oracle-lab.ts", import.meta.url).pathname);
  const kind = await worker.call<string>("start", await rig.setup(name, store));
  if (kind !== store) throw new Error(`${name}: the daemon runs on ${kind}, not ${store}`);
  return { name, worker, steps: [], peakMb: 0 };
}

/** Grows both daemons to `n` vaults, then runs the cold cycle and the timed ones, turn about. */
async function step(labs: Lab[], n: number, cycles: number): Promise<void> {
  const grown = [];
  for (const lab of labs) grown.push(await lab.worker.call<number>("grow", n));
  const cold = [];
  for (const lab of labs) cold.push(await lab.worker.call<CycleCost>("cycle", "daemon"));
  const timed: CycleCost[][] = labs.map(() => []);
  for (let i = 0; i < cycles; i++) {
    for (let k = 0; k < labs.length; k++) {
      const j = (k + i) % labs.length;
      timed[j]!.push(await labs[j]!.worker.call<CycleCost>("cycle", "daemon"));
    }
  }
  for (const [j, lab] of labs.entries()) {
    const usage = await lab.worker.usage();
    lab.steps.push({ vaults: n, growSeconds: grown[j]!, cold: cold[j]!, cycles: timed[j]!, rss: mib(usage.rssKb) });
    lab.peakMb = mib(usage.maxRssKb);
  }
}

export async function oracleScaleShared(size: OracleScaleSharedSize = ORACLE_SCALE_SHARED_FULL): Promise<BenchResult> {
  const started = Date.now();
  return withSharedRig("tradevault-bench-oracle-", async (rig) => {
    const labs = [await startLab(rig, "PostgreSQL", "postgres"), await startLab(rig, "SQLite", "sqlite")];
    const anvil: number[] = [];
    for (const n of size.vaults) {
      await step(labs, n, size.cycles);
      anvil.push(mib(rig.chainMemory().rssKb));
    }
    const anvilPeak = mib(rig.chainMemory().peakKb);
    const [pg, lite] = labs as [Lab, Lab];
    return {
      name: "oracle-scale-shared",
      setup: `daemon.oracle.cycle() at ${size.vaults.join(", ")} active vaults, a cold cycle then ${size.cycles} timed each; external Anvil and sim; PostgreSQL and SQLite daemons side by side`,
      figures: [...cycleFigures(pg, lite, size), ...[pg, lite].map((l) => memoryFigure(l, anvilPeak))],
      peakRssMb: pg.peakMb,
      notes: [
        ...labs.flatMap((l) => l.steps.map((s) => stepNote(l, s))),
        ...labs.map((l) => slowestNote(l)),
        `Anvil (one node for both daemons, each with its own contracts) RSS after each vault count: ${anvil.map((m, i) => `${m} MiB at ${size.vaults[i]}`).join(", ")}; peak ${anvilPeak} MiB. ` +
          `Peak RSS of the daemon processes: PostgreSQL ${pg.peakMb} MiB (the table's), SQLite ${lite.peakMb} MiB; with the exchange and the chain outside, that is the daemon alone.`,
        "The cold cycle after vaults are added reads each new vault's ledger and fills too; later cycles read account state only. The sim runs in a process of its own, reached over HTTP (--exchange-url): no weight limiter, as on the embedded sim.",
      ],
      seconds: (Date.now() - started) / 1000,
    };
  });
}

const steady = (s: Step) => median(s.cycles.map((c) => c.ms));

function cycleFigures(pg: Lab, lite: Lab, size: OracleScaleSharedSize): Figure[] {
  return pg.steps.flatMap((p, i) => {
    const l = lite.steps[i]!;
    const target = p.vaults === size.vaults[size.vaults.length - 1] ? (ms: number) => ({ target: "< 3 s", met: ms < 3_000 && applied(p) && applied(l) }) : () => ({});
    return [
      { label: `PostgreSQL, cycle, ${p.vaults} vaults (baseline: SQLite)`, value: steady(p) / 1000, unit: "s", baseline: steady(l) / 1000, ...target(steady(p)) },
      { label: `SQLite, cycle, ${l.vaults} vaults`, value: steady(l) / 1000, unit: "s", ...target(steady(l)) },
    ];
  });
}

function memoryFigure(lab: Lab, anvilPeakMb: number): Figure {
  const total = lab.peakMb + anvilPeakMb;
  return { label: `peak RSS, ${lab.name} daemon + Anvil`, value: total, unit: "MiB", target: "< 1024 MiB", met: total < 1024 };
}

/** Every reading of every cycle applied on-chain (a BalanceUpdated event stored per vault), and no daemon-side event. */
const applied = (s: Step) => [s.cold, ...s.cycles].every((c) => c.applied === c.vaults && c.otherEvents === 0);

const secs = (cycles: CycleCost[], ms: (c: CycleCost) => number) => cycles.map((c) => `${fmt(ms(c) / 1000)} s`).join(", ");
const rest = (c: CycleCost) => c.ms - c.readMs - c.writeMs;

function stepNote(lab: Lab, s: Step): string {
  const all = [s.cold, ...s.cycles];
  return `${lab.name}, ${s.vaults} vaults: created in ${fmt(s.growSeconds)} s; cold cycle ${fmt(s.cold.ms / 1000)} s, then ${secs(s.cycles, (c) => c.ms)}; ` +
    `exchange reads in flight ${secs(all, (c) => c.readMs)} (${all.map((c) => c.reads).join(", ")} reads); ` +
    `the store's units of work in flight ${secs(all, (c) => c.writeMs)} (${lab.name}); the rest (the batched chain write, its receipt, decoding) ${secs(all, rest)}; ` +
    `${s.cycles[0]?.transactions ?? 0} transaction(s) a cycle, ${fmt(median(s.cycles.map((c) => c.gas / c.vaults)))} gas per vault; ` +
    `daemon CPU per cycle ${secs(all, (c) => c.cpuMs)}; every reading applied, no daemon-side event: ${applied(s) ? "yes" : "NO"}; RSS after the cycles ${s.rss} MiB.`;
}

/** The slowest of the three steps at the largest vault count, by the median of the timed cycles. */
function slowestNote(lab: Lab): string {
  const top = lab.steps[lab.steps.length - 1];
  if (!top) return `${lab.name}: no cycle ran.`;
  const parts: [string, number][] = [
    ["the exchange reads (one account-state read per vault, from the sim over HTTP)", median(top.cycles.map((c) => c.readMs))],
    [`the database (the store's units of work on ${lab.name})`, median(top.cycles.map((c) => c.writeMs))],
    ["the chain write (the batched transaction, its receipt, its events decoded)", median(top.cycles.map(rest))],
  ];
  parts.sort((a, b) => b[1] - a[1]);
  return `${lab.name}, slowest step at ${top.vaults} vaults: ${parts[0]![0]}, ${fmt(parts[0]![1] / 1000)} s of the ${fmt(steady(top) / 1000)} s cycle; ` +
    `then ${parts.slice(1).map(([what, ms]) => `${what} ${fmt(ms / 1000)} s`).join(", ")}.`;
}
