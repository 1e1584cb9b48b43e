#!/usr/bin/env node
// Runs every test/**/*.test.ts file (uvu suites) in a Node process of its own, four at a time on two
// cores (TEST_CONCURRENCY to change it), slowest first by the last run's times, and ends with the
// line `N passed, N failed` that CI reads. `--folder bench/smoke` (npm run bench:smoke) runs the
// benchmarks' smoke tests instead, which npm test leaves out. Usage: npm test [-- <path-substring> ...]
//
// The files run as JavaScript from a transpiled copy of the package (test/helpers/compiled-tree.js):
// through tsx's loader a daemon test costs about 2 s of CPU more; TEST_TSX=1 runs them through tsx.
// Tests wait for events, not for a time: a file still running after TEST_FILE_LIMIT_MS (20 minutes)
// is a hang, killed with everything it started, and fails.
//
// test/browser/** drives headless Chromium (Debian's package, or CHROMIUM_PATH). Without one those
// files fail, each with a line saying how to get one (CI must run them, so they are never skipped
// quietly); TEST_SKIP_BROWSER=1 leaves them out on purpose, counted as skipped.
//
// With TRADEVAULT_TEST_PG=1 (CI sets it), the files of POSTGRES_SUITES run a second time against a
// real PostgreSQL, each reported as "<file> [pg]": one throwaway server for the whole run
// (test/helpers/postgres-server.js), its URL passed in TRADEVAULT_TEST_PG_URL; every store a test
// opens gets a fresh database on it. Without a PostgreSQL server those runs fail, each with one line.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { availableParallelism, tmpdir } from "node:os";
import { CHROMIUM_FIX, findChromium } from "../test/browser/helpers/chromium-path.js";
import { startPostgresServer } from "../test/helpers/postgres-server.js";
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
// more than they compute, and the extra two fill those gaps.
const concurrency = Number(process.env.TEST_CONCURRENCY ?? Math.min(4, availableParallelism() + 2));
const fileLimitMs = Number(process.env.TEST_FILE_LIMIT_MS ?? 20 * 60_000);
// Each file's last time (bench/out is git-ignored measurement output), read to start the slowest
// files first: a long file started last keeps the run going on one core while the other idles.
const timesPath = process.env.TEST_TIMES_PATH ?? join(root, "bench", "out", "test-times.json");
// A runner started by a test (test/helpers/run-tests.test.ts) shares its parent's templates.
const nested = Boolean(process.env.TRADEVAULT_TEST_TEMPLATES);

function findTests(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return findTests(path);
    return name.endsWith(".test.ts") ? [path] : [];
  });
}

const files = findTests(join(root, folder))
  .map((f) => relative(root, f))
  .filter((f) => filters.length === 0 || filters.some((p) => f.includes(p)))
  .sort();

/** A file that launches Chromium (uvu hides an error thrown in a `before` hook, so this is asked first). */
const needsChromium = (file) => /from "playwright-core"|helpers\/chromium\.js"/.test(readFileSync(join(root, file), "utf8"));
const chromium = findChromium();

/** A run that did not start, in one line: failed, or skipped on request. */
const notRun = (name, line, skip = false) => ({ file: name, code: skip ? 0 : 1, output: `[run-tests] ${line}\n`, passed: 0, failed: skip ? 0 : 1, skipped: skip ? 1 : 0, ms: 0 });

function withoutChromium(file) {
  return process.env.TEST_SKIP_BROWSER === "1"
    ? notRun(file, `skipped: needs Chromium (${chromium.problem}), and TEST_SKIP_BROWSER=1`, true)
    : notRun(file, `FAILED: needs Chromium: ${chromium.problem}; ${CHROMIUM_FIX} (or TEST_SKIP_BROWSER=1 to leave the browser tests out)`);
}

const withPostgres = process.env.TRADEVAULT_TEST_PG === "1";
const lastTimes = readTimes();
/** Each file once on SQLite, and the PostgreSQL suites' files once more on PostgreSQL; slowest first, new files (no time yet) among them. */
const runs = files
  .flatMap((file) => [
    { file, name: file, postgres: false },
    ...(withPostgres && POSTGRES_SUITES.some((s) => file.startsWith(s)) ? [{ file, name: `${file} [pg]`, postgres: true }] : []),
  ])
  .sort((a, b) => (lastTimes[b.name] ?? Infinity) - (lastTimes[a.name] ?? Infinity) || a.name.localeCompare(b.name));

/** The run's deployed data directories, made by the first test daemon that needs one (test/helpers/data-template.ts). */
const templates = process.env.TRADEVAULT_TEST_TEMPLATES || mkdtempSync(join(tmpdir(), "tradevault-templates-"));
if (!nested) process.on("exit", () => rmSync(templates, { recursive: true, force: true }));

/** The run's PostgreSQL server, started on the first PostgreSQL run: its URL, or why there is none. */
let postgres;
const postgresServer = () => (postgres ??= startPostgresServer().then((server) => ({ server }), (err) => ({ problem: err.message })));

/** The test processes' environment: the PostgreSQL server for a [pg] run, none for the SQLite one. */
async function envFor(run) {
  const { TRADEVAULT_TEST_PG, TRADEVAULT_TEST_PG_URL, ...rest } = process.env;
  const env = { ...rest, TRADEVAULT_TEST_TEMPLATES: templates, FORCE_COLOR: "0" };
  if (!run.postgres) return { env };
  const pg = await postgresServer();
  if (pg.problem) return { problem: pg.problem };
  return { env: { ...env, TRADEVAULT_TEST_PG: "1", TRADEVAULT_TEST_PG_URL: pg.server.url } };
}

// Each file runs in a process group of its own, so a hang is killed with the daemons and chains it
// started; an interrupted run takes them all down too.
const running = new Set();
const killGroup = (child) => {
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {
    /* already gone */
  }
};
for (const [signal, number] of [["SIGINT", 2], ["SIGTERM", 15]]) {
  process.on(signal, () => {
    for (const child of running) killGroup(child);
    process.exit(128 + number);
  });
}

/** uvu's count of `label` in a file's output. */
const count = (text, label) => Number((text.match(new RegExp(`${label}:\\s+(\\d+)`)) ?? [])[1] ?? NaN);

function runFile(run, env) {
  return new Promise((resolve) => {
    const started = Date.now();
    const args = tree ? ["--enable-source-maps", join(tree, run.file.replace(/\.ts$/, ".js"))] : ["--import", "tsx", run.file];
    const child = spawn(process.execPath, args, { cwd: root, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
    running.add(child);
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    const limit = setTimeout(() => {
      output += `\n[run-tests] ${run.name} still running after ${fileLimitMs / 1000} s: a hang; killed\n`;
      killGroup(child);
    }, fileLimitMs);
    child.on("close", (code) => {
      clearTimeout(limit);
      running.delete(child);
      const [total, passed, skipped] = ["Total", "Passed", "Skipped"].map((label) => count(output, label));
      // uvu counts skipped tests apart from its total; a file that exits non-zero after all green fails too.
      let failed = Number.isNaN(total) ? 1 : total - passed;
      if (code !== 0 && failed === 0) failed = 1;
      resolve({ file: run.name, code, output, passed: passed || 0, failed, skipped: skipped || 0, ms: Date.now() - started });
    });
  });
}

async function runOne(run) {
  if ("problem" in chromium && needsChromium(run.file)) return withoutChromium(run.name);
  const { env, problem } = await envFor(run);
  return problem ? notRun(run.name, `FAILED: needs PostgreSQL: ${problem}`) : runFile(run, env);
}

/** The transpiled copy the files run from, or undefined to run them through tsx. */
const tree = process.env.TEST_TSX === "1" ? undefined : (await compileTree(root)).tree;
console.log(tree ? `[run-tests] the files run as JavaScript from ${tree} (TEST_TSX=1: through tsx)` : "[run-tests] the files run through tsx");

const results = [];
let next = 0;
async function worker() {
  while (next < runs.length) {
    const r = await runOne(runs[next++]);
    results.push(r);
    process.stdout.write(`\n=== ${r.file} (${(r.ms / 1000).toFixed(1)} s, exit ${r.code})\n${r.output}`);
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
const sum = (key) => results.reduce((n, r) => n + r[key], 0);
const [passed, failed, skipped] = [sum("passed"), sum("failed"), sum("skipped")];
console.log(`\nSlowest files (of ${results.length}):`);
for (const r of [...results].sort((a, b) => b.ms - a.ms).slice(0, 10)) console.log(`  ${(r.ms / 1000).toFixed(1).padStart(6)} s  ${r.file}`);
console.log(`Wall clock: ${(wallMs / 1000).toFixed(1)} s for ${passed + failed + skipped} tests in ${results.length} files`);
if (!nested) saveTimes();

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

/** Each file's time merged into the last ones (a filtered run updates its own files only). */
function saveTimes() {
  try {
    mkdirSync(dirname(timesPath), { recursive: true });
    const times = { ...readTimes(), ...Object.fromEntries(results.filter((r) => r.ms > 0).map((r) => [r.file, r.ms])) };
    writeFileSync(timesPath, `${JSON.stringify(times, Object.keys(times).sort(), 1)}\n`);
  } catch (err) {
    console.log(`[run-tests] could not write ${timesPath}: ${err.message}`);
  }
}
