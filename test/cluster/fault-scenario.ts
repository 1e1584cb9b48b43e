// One seeded run of a cluster under faults, shared by test/cluster/faults.test.ts and `npm run bench
// -- cluster-faults`: three built daemons on a PostgreSQL server of the run's own (so it can be
// stopped), traffic throughout (fault-traffic.ts), and the faults in an order and at moments the seed
// draws: SIGSTOP of a daemon for longer than a lease (one of them made while the daemon has a
// transaction open, as a box that freezes mid-write), SIGKILL and a restart on the same data
// directory, PostgreSQL stopped and started again. Everything is recorded into a History for the
// checker. Between faults the run waits for the cluster to recover (every vault written again).
import pg from "pg";
import { approveAgent, type Party } from "../helpers/daemon.js";
import { startStoppablePostgres, type StoppablePostgres } from "../helpers/postgres-stoppable.js";
import { mulberry32 } from "../helpers/mulberry32.js";
import { tempDir, waitUntil } from "../helpers/util.js";
import { partyAt, simFaucet, startCluster, vaultAt, type Cluster, type Proc } from "./cluster-rig.js";
import { measureFault } from "./fault-measures.js";
import { startRecorder, type Recorder } from "./fault-recorder.js";
import { startTraffic, type Traffic } from "./fault-traffic.js";
import type { Fault, History } from "./history-checker.js";

export type FaultKind = "stall" | "caught-stall" | "kill" | "db";

export interface ScenarioSize {
  seed: number;
  intervalS: number;
  /** Vaults made before the faults begin, and while they go on. */
  vaults: number;
  extraVaults: number;
  /** Each is made once, in the order the seed shuffles them. */
  faults: FaultKind[];
  /** A stall's length in oracle intervals (above the lease's 1.5 and the 2 it then has to take over). */
  stallIntervals: [number, number];
  dbOutageS: [number, number];
  /** Quiet time before each fault, seconds. */
  gapS: [number, number];
}

export interface ScenarioRun {
  history: History;
  /** Lines for the report: the seed, each fault as made, the traffic's totals. */
  log: string[];
  complaints: string;
  /** Daemons that exited by themselves (each restarted): every one is a failure. */
  exits: string[];
  /** The highest peak resident set of any daemon process, KiB. */
  peakRssKb: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const appName = (i: number) => `tradevault-faults-d${i}`;

export async function runFaultScenario(size: ScenarioSize, say: (line: string) => void = () => undefined): Promise<ScenarioRun> {
  // The faults' order, victims, lengths and moments from one stream, the traffic's from another: the
  // traffic's draws depend on timing, the faults' replay exactly from the seed.
  const rng = mulberry32(size.seed);
  const trafficRng = mulberry32(size.seed ^ 0x5bd1e995);
  const between = ([lo, hi]: [number, number]) => lo + rng() * (hi - lo);
  const log: string[] = [];
  const crashes: string[] = [];
  const exits: string[] = [];
  const note = (line: string) => {
    log.push(line);
    say(line);
  };
  note(`seed ${size.seed} (TEST_SEED=${size.seed} replays it)`);
  const tmp = tempDir("tradevault-faults-");
  let server: StoppablePostgres | undefined;
  let cluster: Cluster | undefined;
  let recorder: Recorder | undefined;
  let traffic: Traffic | undefined;
  let probe: pg.Pool | undefined;
  try {
    server = await startStoppablePostgres();
    const databaseUrl = await server.database();
    const withName = (i: number) => `${databaseUrl}?application_name=${appName(i)}`;
    cluster = await startCluster({ dir: tmp.path, databaseUrl: withName, daemons: 3, intervalS: size.intervalS });
    const c = cluster;
    recorder = startRecorder(databaseUrl);
    probe = new pg.Pool({ connectionString: databaseUrl, max: 1 });
    probe.on("error", () => undefined);

    const { trader, vaults } = await makeVaults(c, size.vaults);
    await recovered(c, recorder, vaults, 0, crashes);
    note(`${vaults.length} vaults made and read; traffic starts`);

    traffic = startTraffic({ daemons: () => c.daemons, simUrl: c.simUrl, trader, rng: trafficRng, extraVaults: size.extraVaults, vaults });
    const order = shuffle(size.faults, rng);
    const faults: Fault[] = [];
    for (const kind of order) {
      await sleep(between(size.gapS) * 1000);
      const fault = await makeFault(kind, { c, server, probe, recorder, rng, size, between });
      faults.push(fault);
      note(`${kind}${fault.daemon === undefined ? "" : ` of daemon ${fault.daemon}`}${fault.caught === false ? " (no open transaction caught: a plain stall)" : ""}: ` +
        `${((fault.toMs - fault.fromMs) / 1000).toFixed(1)} s`);
      const back = await recovered(c, recorder, vaults, fault.toMs, crashes);
      for (const line of crashes.splice(0)) {
        exits.push(line);
        note(`  ${line}`);
      }
      note(`  every vault written again ${((back - fault.toMs) / 1000).toFixed(1)} s after it ended`);
    }
    await recovered(c, recorder, vaults, Date.now(), crashes);
    const end = await wrapUp(c, traffic, recorder, probe);
    note(`traffic: ${traffic.signIns.length} sign-ins, ${traffic.acks.filter((a) => a.kind === "order").length} orders answered 2xx, ` +
      `${traffic.acks.filter((a) => a.kind === "vault").length} vaults made during the faults, SSE ids received ${traffic.streams().map((s) => s.ids.length).join("/")}, ` +
      `requests without an answer or 5xx by daemon ${traffic.failures.join("/")}; ${end.journal.length} journal rows, ${end.mined.length} operator transactions mined`);
    const history: History = {
      intervalS: size.intervalS, leases: recorder.leases, writes: recorder.writes, ...end,
      acks: traffic.acks, streams: traffic.streams(), signIns: traffic.signIns, faults,
    };
    const peakRssKb = Math.max(0, ...c.all().filter((p) => p.name.startsWith("daemon")).map((p) => p.proc.peakRssKb()));
    return { history, log, complaints: c.complaints(), peakRssKb, exits: [...exits, ...crashes] };
  } catch (err) {
    throw new Error(`${(err as Error).message}\n${log.join("\n")}\n${cluster?.complaints() ?? ""}`);
  } finally {
    await traffic?.stop().catch(() => undefined);
    await recorder?.stop().catch(() => undefined);
    await probe?.end().catch(() => undefined);
    await cluster?.close();
    await server?.close();
    tmp.remove();
  }
}

/** A trader with an approved agent and `count` vaults of it, made through the three APIs in turn. */
async function makeVaults(c: Cluster, count: number): Promise<{ trader: Party; vaults: string[] }> {
  const trader = await partyAt(c.daemons[0]!.http);
  await simFaucet(c.simUrl, trader.address, "100000");
  await approveAgent(c.daemons[0]!.http, trader.token, trader.wallet);
  const vaults: string[] = [];
  for (let i = 0; i < count; i++) {
    const http = c.daemons[i % c.daemons.length]!.http;
    const investor = await partyAt(http);
    await simFaucet(c.simUrl, investor.address, "10000");
    vaults.push(await vaultAt(http, investor, trader));
  }
  return { trader, vaults };
}

/** Requests ended, every SSE client caught up with the table, the recorder stopped; the end state. */
async function wrapUp(c: Cluster, traffic: Traffic, recorder: Recorder, probe: pg.Pool) {
  await traffic.quiesce();
  const last = Number((await probe.query<{ id: string | null }>("select max(id) as id from vault_events")).rows[0]!.id ?? 0);
  await waitUntil(() => traffic.streamHighs().every((h) => h >= last), { slowMs: 120_000, what: `every SSE client caught up to event ${last}` });
  await traffic.stop();
  await recorder.stop();
  return recorder.final(c.node.url!, c.operator);
}

function shuffle<T>(xs: T[], rng: () => number): T[] {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

interface FaultDeps {
  c: Cluster;
  server: StoppablePostgres;
  probe: pg.Pool;
  recorder: Recorder;
  rng: () => number;
  size: ScenarioSize;
  between(range: [number, number]): number;
}

async function makeFault(kind: FaultKind, d: FaultDeps): Promise<Fault> {
  const { c, rng, size } = d;
  const victim = Math.floor(rng() * c.daemons.length);
  const daemonId = c.idOf(victim);
  if (kind === "db") {
    const lengthMs = d.between(size.dbOutageS) * 1000;
    const fromMs = Date.now();
    await d.server.stop();
    await sleep(lengthMs - (Date.now() - fromMs));
    await d.server.start();
    return { kind: "db", fromMs, toMs: Date.now() };
  }
  const proc = c.daemons[victim]!;
  if (kind === "kill") {
    const fromMs = Date.now();
    await proc.kill();
    await sleep(d.between([1, 4]) * 1000);
    await c.start(victim);
    return { kind, daemon: victim, daemonId, fromMs, toMs: Date.now() };
  }
  const lengthMs = d.between(size.stallIntervals) * size.intervalS * 1000;
  const caught = kind === "caught-stall" ? await pauseInTransaction(d.probe, proc, appName(victim)) : (proc.pause(), undefined);
  const fromMs = Date.now();
  await sleep(lengthMs);
  // Past its drawn length a stall lasts until the others have written every vault: a busy machine
  // may take longer, a frozen cluster never does (its writes wait on the stopped daemon). The bound
  // only ends a run that would never end; the test then finds the vaults unwritten.
  const stall = { kind: "stall" as const, daemon: victim, daemonId, fromMs, caught };
  const everyVaultWritten = () => {
    const f = measureFault({ leases: d.recorder.leases, writes: d.recorder.writes, signIns: [] }, { ...stall, toMs: Date.now() });
    return [...f.firstWriteMs.values()].every(Number.isFinite);
  };
  for (const giveUp = Date.now() + STALL_WAIT_MS; !everyVaultWritten() && Date.now() < giveUp;) await sleep(100);
  proc.resume();
  return { ...stall, toMs: Date.now() };
}

/** How long a stall waits, past its drawn length, for the others to write every vault. */
const STALL_WAIT_MS = 120_000;

/**
 * SIGSTOP at a moment the daemon has a transaction open (its connection idle in transaction, between
 * two statements of a unit of work): checked again once stopped, and let go to try again when the
 * transaction had ended meanwhile. After many tries it stays stopped anyway (false).
 */
async function pauseInTransaction(probe: pg.Pool, proc: Proc, app: string): Promise<boolean> {
  const open = async () => (await probe.query<{ pid: number; xact_start: Date }>(
    "select pid, xact_start from pg_stat_activity where application_name = $1 and state = 'idle in transaction'", [app])).rows;
  for (let i = 0; i < 5_000; i++) {
    const seen = await open();
    if (seen.length > 0) {
      proc.pause();
      const still = await open();
      if (still.some((s) => seen.some((t) => t.pid === s.pid && t.xact_start.getTime() === s.xact_start.getTime()))) return true;
      proc.resume();
    }
    await sleep(1);
  }
  proc.pause();
  return false;
}

/**
 * Until every daemon answers /healthz 200 and every vault has a balance written since `sinceMs`; when.
 * A daemon that exited by itself ends the wait at once: no fault here should make one exit.
 */
async function recovered(c: Cluster, recorder: Recorder, vaults: string[], sinceMs: number, crashes: string[]): Promise<number> {
  let last = "";
  try {
    // Waits on the recovery itself; the helper's bound only stops a run that would never end.
    return await waitUntil<number | undefined>(async () => {
      const gone = c.daemons.findIndex((d) => !d.running());
      if (gone >= 0) {
        // No fault here should make a daemon exit: noted, and restarted as a supervisor would, so the
        // rest of the run is still recorded and checked.
        const d = c.daemons[gone]!;
        const lines = d.log().trim().split("\n");
        const thrown = lines.filter((l) => /^\w*Error: |^Emitted 'error' event|^\s+throw /.test(l)).slice(-3);
        const tail = (thrown.length ? thrown : lines.slice(-3)).map((l) => l.trim().slice(0, 300)).join(" | ");
        crashes.push(`daemon ${gone} exited by itself (${d.child.exitCode ?? d.child.signalCode}), seen at ${new Date().toISOString()}: ${tail}`);
        await c.start(gone);
        return undefined;
      }
      const health = await Promise.all(c.daemons.map((d) => fetch(`${d.url}/healthz`).then((r) => r.status, () => 0)));
      const written = new Set(recorder.writes.filter((w) => w.seenMs > sinceMs).map((w) => w.vault.toLowerCase()));
      const unwritten = vaults.filter((v) => !written.has(v.toLowerCase()));
      last = `/healthz ${health.join(", ")}; ${unwritten.length} of ${vaults.length} vaults not written again`;
      return health.every((st) => st === 200) && unwritten.length === 0 ? Date.now() : undefined;
    }, { slowMs: 600_000, intervalMs: 100, what: "the cluster to recover" }) as number;
  } catch (err) {
    throw new Error(`${(err as Error).message}: ${last}`);
  }
}
