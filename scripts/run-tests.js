#!/usr/bin/env node
// Runs every test/**/*.test.ts file in its own Node process (uvu suites), four at a time on two
// cores (TEST_CONCURRENCY to change it), and ends with one line `N passed, N failed` that CI reads.
// The files run as JavaScript, transpiled once per run into a copy of the package: tsx's loader costs
// each process about 1.3 s of CPU (test/helpers/compiled-tree.js); TEST_TSX=1 runs them through tsx
// as before. Each file's seconds and CPU seconds end the run, slowest first. test/browser/** is part of it:
// those files drive headless Chromium (Debian's package, or CHROMIUM_PATH) against real daemons.
// Without a Chromium they fail, each with a line saying how to get one (CI must run them, so they are
// never skipped quietly); TEST_SKIP_BROWSER=1 leaves them out on purpose, counted as skipped.
//
// With TRADEVAULT_TEST_PG=1 (CI sets it), the files of POSTGRES_SUITES run a second time against a
// real PostgreSQL, each reported as "<file> [pg]": one throwaway server for the whole run
// (test/helpers/postgres-server.js), its URL passed in TRADEVAULT_TEST_PG_URL; every store a test
// opens gets a fresh database on it. Without a PostgreSQL server those runs fail, each with one line.
// Usage: npm test [-- <path-substring> ...]; npm run bench:smoke runs bench/smoke/ instead of test/
// (`--folder bench/smoke`): each benchmark at a tiny size, which CI runs after npm test.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { availableParallelism, tmpdir } from "node:os";
import { CHROMIUM_FIX, findChromium } from "../test/browser/helpers/chromium-path.js";
import { startPostgresServer } from "../test/helpers/postgres-server.js";
import { timingReport } from "../test/helpers/timing-report.js";
import { compileTree } from "../test/helpers/compiled-tree.js";

/** Folders whose files also run against PostgreSQL when TRADEVAULT_TEST_PG=1: add a suite with one line. */
const POSTGRES_SUITES = [
  "test/db/",
  "test/cluster/",
  "test/auth/",
  "test/trading/",
  "test/vaults/",
  "test/chain/tx-relay",
  "test/alerts/alerts",
  "test/monitor/alert-monitor",
  "test/alerts/webhooks",
  "test/alerts/outbox-claims",
  "test/money/verify",
  "test/money/lives",
  // Needs a PostgreSQL to move into; its tests are skipped on the SQLite pass.
  "test/ops/migrate-store",
];

const root = fileURLToPath(new URL("..", import.meta.url));
const args = process.argv.slice(2);
const folderAt = args.indexOf("--folder");
const folder = folderAt === -1 ? "test" : args.splice(folderAt, 2)[1];
const filters = args;
// Two files more than there are cores (at most 4): most files wait on the chain, the sim and timers
// more than they compute (test/vaults two at a time kept two cores 56% busy). Since the files stopped
// paying tsx's loader they compute less and wait as long, and a fourth fills more of the gaps: the
// whole suite back to back, 310.7 s at three (cores 85% busy), 276.1 s at four (90%).
const concurrency = Number(process.env.TEST_CONCURRENCY ?? Math.min(4, availableParallelism() + 2));
const fileTimeoutMs = Number(process.env.TEST_FILE_TIMEOUT_MS ?? 10 * 60_000);
// The timing report also goes to a file (bench/out is git-ignored measurement output), so a run's
// figures can be compared with the next one's; the same text is in the log, before the last line.
const reportPath = process.env.TEST_REPORT_PATH ?? join(root, "bench", "out", "test-times.txt");
// Each file's last time, read to start the slowest files first (a long file started last keeps the
// run going on one core while the other idles), updated after every run for the files it ran.
const timesPath = join(dirname(reportPath), "test-times.json");
// A runner started by a test (test/helpers/run-tests.test.ts) shares its parent's templates and
// leaves the parent's report and times alone.
const nested = Boolean(process.env.TRADEVAULT_TEST_TEMPLATES);

function findTests(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...findTests(path));
    else if (name.endsWith(".test.ts")) out.push(path);
  }
  return out;
}

const files = findTests(join(root, folder))
  .map((f) => relative(root, f))
  .filter((f) => filters.length === 0 || filters.some((p) => f.includes(p)))
  .sort();

const strip = (s) => s.replace(/\x1b\[[0-9;]*m/g, "");

/** A file that launches Chromium (uvu hides an error thrown in a `before` hook, so this is asked first). */
const needsChromium = (file) => /from "playwright-core"|helpers\/chromium\.js"/.test(readFileSync(join(root, file), "utf8"));
const chromium = findChromium();

/** A browser test when there is no Chromium: not run, and said so in one line (failed, or skipped on request). */
function withoutChromium(file) {
  const skip = process.env.TEST_SKIP_BROWSER === "1";
  const output = skip
    ? `[run-tests] skipped: needs Chromium (${chromium.problem}), and TEST_SKIP_BROWSER=1\n`
    : `[run-tests] FAILED: needs Chromium: ${chromium.problem}; ${CHROMIUM_FIX} (or TEST_SKIP_BROWSER=1 to leave the browser tests out)\n`;
  return { file, code: skip ? 0 : 1, output, passed: 0, failed: skip ? 0 : 1, skipped: skip ? 1 : 0, ms: 0 };
}

const withPostgres = process.env.TRADEVAULT_TEST_PG === "1";
const lastTimes = readTimes();
/** Slowest first by the last run's times; a file with none (new) counts as slow, so it starts early too. */
const byLastTime = (a, b) => (lastTimes[b.name] ?? Infinity) - (lastTimes[a.name] ?? Infinity) || a.name.localeCompare(b.name);
/** Each file once on SQLite, and the PostgreSQL suites' files once more on PostgreSQL. */
const runs = files.flatMap((file) => [
  { file, name: file, postgres: false },
  ...(withPostgres && POSTGRES_SUITES.some((s) => file.startsWith(s)) ? [{ file, name: `${file} [pg]`, postgres: true }] : []),
]);

/** The run's deployed data directories, made by the first test daemon that needs one (test/helpers/data-template.ts). */
const templates = { path: process.env.TRADEVAULT_TEST_TEMPLATES || mkdtempSync(join(tmpdir(), "tradevault-templates-")) };
if (!nested) process.on("exit", () => rmSync(templates.path, { recursive: true, force: true }));

/** The run's PostgreSQL server, started on the first PostgreSQL run: its URL, or why there is none. */
let postgres;
const postgresServer = () => (postgres ??= startPostgresServer().then((server) => ({ server }), (err) => ({ problem: err.message })));

/** The test processes' environment: the PostgreSQL server for a [pg] run, none for the SQLite one. */
async function envFor(run) {
  const { TRADEVAULT_TEST_PG, TRADEVAULT_TEST_PG_URL, ...rest } = process.env;
  const env = { ...rest, TRADEVAULT_TEST_TEMPLATES: templates.path };
  if (!run.postgres) return { env };
  const pg = await postgresServer();
  if (pg.problem) return { problem: pg.problem };
  return { env: { ...env, TRADEVAULT_TEST_PG: "1", TRADEVAULT_TEST_PG_URL: pg.server.url } };
}

function withoutPostgres(run, problem) {
  const output = `[run-tests] FAILED: needs PostgreSQL: ${problem}\n`;
  return { file: run.name, code: 1, output, passed: 0, failed: 1, skipped: 0, ms: 0 };
}

/**
 * CPU seconds of this runner's reaped children (and theirs: daemons, chains), from /proc (Linux only;
 * undefined elsewhere). Read as each test process exits, the step since the last reading is that
 * file's CPU: on two cores a file's CPU, not its wall time (which includes waiting for the others),
 * says what it costs the run. Two files reaped in the same tick would share one reading (rare).
 */
function childrenCpuMs() {
  try {
    const fields = readFileSync("/proc/self/stat", "utf8").split(")").at(-1).trim().split(/\s+/);
    // cutime and cstime are the stat file's fields 16 and 17, in clock ticks (100 a second on Linux).
    return (Number(fields[13]) + Number(fields[14])) * 10;
  } catch {
    return undefined;
  }
}
let cpuSeen = childrenCpuMs();

function runFile(file, name, env) {
  return new Promise((resolve) => {
    const started = Date.now();
    const args = tree ? ["--enable-source-maps", join(tree, file.replace(/\.ts$/, ".js"))] : ["--import", "tsx", file];
    const child = spawn(process.execPath, args, {
      cwd: root,
      env: { ...env, FORCE_COLOR: "0" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    const timer = setTimeout(() => {
      output += `\n[run-tests] ${name} exceeded ${fileTimeoutMs} ms; killed\n`;
      child.kill("SIGKILL");
    }, fileTimeoutMs);
    let cpuMs;
    child.on("exit", () => {
      const now = childrenCpuMs();
      if (now !== undefined && cpuSeen !== undefined) cpuMs = now - cpuSeen;
      cpuSeen = now;
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      const text = strip(output);
      const num = (label) => Number((text.match(new RegExp(`${label}:\\s+(\\d+)`)) ?? [])[1] ?? NaN);
      const total = num("Total");
      const passed = num("Passed");
      const skipped = num("Skipped") || 0;
      // uvu counts skipped tests apart from its total.
      let failed = Number.isNaN(total) ? 1 : total - passed;
      // A file that exits non-zero after reporting all green still counts as a failure.
      if (code !== 0 && failed === 0) failed = 1;
      resolve({ file: name, code, output, passed: Number.isNaN(passed) ? 0 : passed, failed, skipped, ms: Date.now() - started, cpuMs });
    });
  });
}

/** The transpiled copy the files run from, or undefined to run them through tsx. */
const tree = process.env.TEST_TSX === "1" ? undefined : (await compileTree(root)).tree;
console.log(tree ? `[run-tests] the files run as JavaScript from ${tree} (TEST_TSX=1: through tsx)` : "[run-tests] the files run through tsx");

runs.sort(byLastTime);
const results = [];
let next = 0;
async function runOne(run) {
  if ("problem" in chromium && needsChromium(run.file)) return withoutChromium(run.file);
  const { env, problem } = await envFor(run);
  return problem ? withoutPostgres(run, problem) : runFile(run.file, run.name, env);
}

async function worker() {
  while (next < runs.length) {
    const r = await runOne(runs[next++]);
    results.push(r);
    const cpu = r.cpuMs === undefined ? "" : `, ${(r.cpuMs / 1000).toFixed(1)} s CPU`;
    process.stdout.write(`\n=== ${r.file} (${(r.ms / 1000).toFixed(1)} s${cpu}, exit ${r.code})\n${r.output}`);
  }
}
const runStarted = Date.now();
await Promise.all(Array.from({ length: Math.max(1, concurrency) }, worker));
await (await postgres)?.server?.stop();

const wallMs = Date.now() - runStarted;
const pgSuites = files.filter((f) => POSTGRES_SUITES.some((s) => f.startsWith(s))).length;
if (!withPostgres && pgSuites > 0) {
  console.log(`\nOn SQLite only: ${pgSuites} of these files also run against PostgreSQL, and their PostgreSQL-only tests ` +
    `are skipped ("postgres only"). TRADEVAULT_TEST_PG=1 npm test runs them on a throwaway server ` +
    `(PostgreSQL's binaries from apt-get install postgresql, or TRADEVAULT_TEST_PG_BIN); CI does.`);
}
const report = timingReport(results, wallMs);
process.stdout.write(`\n${report}`);
if (!nested) saveTimes(report);

const passed = results.reduce((n, r) => n + r.passed, 0);
const failed = results.reduce((n, r) => n + r.failed, 0);
const skipped = results.reduce((n, r) => n + r.skipped, 0);
const bad = results.filter((r) => r.failed > 0).map((r) => r.file);
if (bad.length) console.log(`\nFailing files:\n  ${bad.join("\n  ")}`);
if (files.length === 0) console.log("no test files matched");
console.log(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
process.exitCode = failed > 0 || files.length === 0 ? 1 : 0;

function readTimes() {
  try {
    return JSON.parse(readFileSync(timesPath, "utf8"));
  } catch {
    return {};
  }
}

/** The report, and each file's time merged into the last ones (a filtered run updates its own files only). */
function saveTimes(report) {
  try {
    mkdirSync(dirname(reportPath), { recursive: true });
    writeFileSync(reportPath, report);
    const times = { ...readTimes(), ...Object.fromEntries(results.filter((r) => r.ms > 0).map((r) => [r.file, r.ms])) };
    writeFileSync(timesPath, `${JSON.stringify(times, Object.keys(times).sort(), 1)}\n`);
  } catch (err) {
    console.log(`[run-tests] could not write ${reportPath}: ${err.message}`);
  }
}
