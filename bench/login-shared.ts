// login-shared: login's measurement (daemon CPU per sign-in beyond the signature check login makes,
// recoverSigner timed in a loop in this process; sign-ins/s with `concurrency` wallets at once beside
// the check's rate) on the set-up daemons sharing a database need (lib/shared-setup.ts: Anvil over
// --rpc-url, a sim over --exchange-url): a daemon on PostgreSQL beside one on SQLite, each in its own
// worker, both up at once. Every round times each daemon and the baseline once, starting one place
// further along each round, so drift on the machine hits all three alike; a daemon's figures are the
// medians of its rounds'.
import { signIns, signInOnce, issuedChallenges, verifyRate, wallet, type LoginSize, type Signed } from "./login.js";
import { httpClient, type Client } from "./lib/load.js";
import { backendCpuMs, databaseName } from "./lib/pg-backends.js";
import { profiled } from "./lib/profile.js";
import { fmt, mib, type BenchResult, type Figure } from "./lib/report.js";
import { withSharedRig, type SharedRig } from "./lib/shared-setup.js";
import { median } from "./lib/stats.js";
import type { Worker } from "./lib/worker-client.js";

export const LOGIN_SHARED_FULL: LoginSize = { concurrency: 8, durationS: 4, runs: 3, warmupS: 1, commitProbe: 50, readProbeS: 0 };

interface Side {
  name: string;
  worker: Worker;
  clients: Client[];
  /** The PostgreSQL database's name, whose backends' CPU is counted. */
  database?: string;
  rates: number[];
  /** Daemon CPU per sign-in (ms), per round. */
  cpuMs: number[];
  /** Daemon CPU while signing in, a share of one core, per round. */
  busy: number[];
  /** PostgreSQL backends' CPU per sign-in (ms), per round. */
  serverCpuMs: number[];
  commits: { one: Record<string, number>; load: Record<string, number>; loadDone: number };
}

async function daemonSide(rig: SharedRig, name: string, store: "postgres" | "sqlite", concurrency: number): Promise<Side> {
  const worker = await rig.worker(new URL("./servers/sign-in.ts", import.meta.url).pathname);
  const shared = await rig.setup(name, store);
  const { url } = await worker.call<{ url: string }>("start", shared);
  return {
    name, worker, clients: Array.from({ length: concurrency }, () => httpClient(url)),
    database: shared.databaseUrl ? databaseName(shared.databaseUrl) : undefined,
    rates: [], cpuMs: [], busy: [], serverCpuMs: [], commits: { one: {}, load: {}, loadDone: 0 },
  };
}

/** One timed stretch of sign-ins on `side`, with the daemon's and the database server's CPU. */
async function timeSide(side: Side, durationS: number, profile: boolean): Promise<void> {
  const before = await side.worker.usage();
  const server0 = side.database ? backendCpuMs(side.database) : 0;
  const t0 = Date.now();
  const run = () => signIns(side.clients, durationS);
  const { rate, done } = await (profile ? profiled(side.worker, `login-shared-${side.name}`, run) : run());
  const cpuMs = (await side.worker.usage()).cpuMs - before.cpuMs;
  side.rates.push(rate);
  side.cpuMs.push(cpuMs / done);
  side.busy.push(cpuMs / (Date.now() - t0));
  side.serverCpuMs.push(side.database ? (backendCpuMs(side.database) - server0) / done : 0);
}

/** Commits per sign-in: `probe` one at a time, then every wallet at once for a second. */
async function countCommits(side: Side, probe: number): Promise<void> {
  await side.worker.call("countCommits");
  for (let i = 0; i < probe; i++) await signInOnce(side.clients[0]!, wallet());
  side.commits.one = await side.worker.call<Record<string, number>>("commits");
  // A sign-in commits its session: to the database the side is named for, or the set-up is not what it says.
  const into = side.database ? (db: string) => db.startsWith(`${side.database} (PostgreSQL)`) : (db: string) => db.endsWith(".db");
  if (probe > 0 && !Object.keys(side.commits.one).some(into)) {
    throw new Error(`${side.name}: ${probe} sign-ins committed nothing to its database (counted: ${JSON.stringify(side.commits.one)})`);
  }
  await side.worker.call("countCommits");
  side.commits.loadDone = (await signIns(side.clients, 1)).done;
  side.commits.load = await side.worker.call<Record<string, number>>("commits");
}

interface Baseline {
  rates: number[];
  /** CPU per check (ms), per round. */
  cpuMs: number[];
}

/** Rounds of: each daemon's sign-ins and the check alone, in an order that turns each round. */
async function rounds(sides: Side[], samples: Signed[], size: LoginSize): Promise<Baseline> {
  const base: Baseline = { rates: [], cpuMs: [] };
  for (const s of sides) await signIns(s.clients, size.warmupS);
  verifyRate(samples, size.warmupS);
  const legs: (Side | "verify")[] = [...sides, "verify"];
  for (let round = 0; round < size.runs; round++) {
    for (let k = 0; k < legs.length; k++) {
      const leg = legs[(k + round) % legs.length]!;
      if (leg !== "verify") {
        await timeSide(leg, size.durationS, round === 0);
        continue;
      }
      const v = verifyRate(samples, size.durationS);
      base.rates.push(v.rate);
      base.cpuMs.push(v.cpuMs);
    }
  }
  return base;
}

export async function loginShared(size: LoginSize = LOGIN_SHARED_FULL): Promise<BenchResult> {
  const started = Date.now();
  return withSharedRig("tradevault-bench-login-", async (rig) => {
    const sides = [await daemonSide(rig, "PostgreSQL", "postgres", size.concurrency), await daemonSide(rig, "SQLite", "sqlite", size.concurrency)];
    try {
      // Challenges from both daemons (each its own origin in the SIWE text): the check costs the same.
      const samples = [...await issuedChallenges(sides[0]!.clients[0]!, 8), ...await issuedChallenges(sides[1]!.clients[0]!, 8)];
      const base = await rounds(sides, samples, size);
      for (const s of sides) await countCommits(s, size.commitProbe);
      const peak = await Promise.all(sides.map(async (s) => mib((await s.worker.usage()).maxRssKb)));
      return {
        name: "login-shared",
        setup: `challenge + personal_sign + login, ${size.concurrency} wallets at once, ${size.runs} rounds x ${size.durationS} s; external Anvil and sim; PostgreSQL and SQLite daemons side by side`,
        figures: sides.flatMap((s) => figures(s, base)),
        peakRssMb: peak[0]!,
        notes: [
          `Baseline: recoverSigner (auth/signer.ts), exactly the call login makes, over 16 SIWE challenges the two daemons issued, in a loop in the benchmark process, once per round: ${base.rates.map((r) => `${fmt(r)}/s`).join(", ")}.`,
          ...sides.flatMap((s) => notes(s, base, size.commitProbe)),
          `Both daemons use --rpc-url (Anvil over HTTP) and --exchange-url (a sim in its own process); a sign-in touches neither. Peak RSS: PostgreSQL daemon ${peak[0]} MiB (the table's), SQLite daemon ${peak[1]} MiB.`,
          "The wallets sign in the benchmark process; the daemon, the PostgreSQL server and this process share the 2 cores, so the PostgreSQL server's CPU per sign-in comes out of the same budget the daemon's does.",
        ],
        seconds: (Date.now() - started) / 1000,
      };
    } finally {
      for (const s of sides) for (const c of s.clients) c.close();
    }
  });
}

/** Daemon CPU per sign-in beyond one signature check (ms), round by round. */
const beyond = (s: Side, base: Baseline) => s.cpuMs.map((ms, i) => ms - base.cpuMs[i]!);
const ratios = (s: Side, base: Baseline) => s.rates.map((r, i) => r / base.rates[i]!);

function figures(s: Side, base: Baseline): Figure[] {
  const ratio = median(ratios(s, base));
  const added = median(beyond(s, base));
  return [
    // Login's budget (bench/login.ts); the PostgreSQL server's CPU per sign-in is in the notes.
    { label: `${s.name}, daemon CPU per sign-in beyond the signature check`, value: added, unit: "ms", ratio: "-", target: "< 5 ms", met: added < 5 },
    { label: `${s.name}, sign-ins/s (baseline: the check alone)`, value: median(s.rates), unit: "/s", baseline: median(base.rates), ratio: `${fmt(ratio)}x`, target: "report" },
  ];
}

function notes(s: Side, base: Baseline, probe: number): string[] {
  const per = (counts: Record<string, number>, n: number) =>
    Object.entries(counts).map(([db, c]) => `${fmt(c / n)} in ${db}`).join(", ") || "none counted";
  return [
    `${s.name}: sign-ins/s per round ${s.rates.map((r) => fmt(r)).join(", ")}; over the round's check ${ratios(s, base).map((r) => `${fmt(r)}x`).join(", ")}; ` +
      `daemon CPU per sign-in beyond one signature check ${beyond(s, base).map((a) => `${fmt(a)} ms`).join(", ")}; ` +
      `daemon CPU while signing in ${s.busy.map((b) => `${Math.round(b * 100)}%`).join(", ")} of one core` +
      (s.database ? `; the PostgreSQL server's backends ${s.serverCpuMs.map((ms) => `${fmt(ms * 1000)} µs`).join(", ")} of CPU per sign-in (${s.serverCpuMs.map((ms, i) => `${fmt(ms / base.cpuMs[i]!)}x`).join(", ")} the verify).` : "."),
    `${s.name}: commits per sign-in (synced unless marked), one at a time: ${per(s.commits.one, probe)}; ` +
      `${s.clients.length} at once (1 s, ${s.commits.loadDone} sign-ins): ${per(s.commits.load, s.commits.loadDone)}.`,
  ];
}
