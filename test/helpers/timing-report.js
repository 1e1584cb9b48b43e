// The test runner's timing report: where a run's time went, slowest files first, and the mean time
// per test (the figure a faster suite is judged by, since the number of tests keeps growing). The
// PostgreSQL runs ("[pg]") are counted apart: they are a second pass over the store's suites.

import { availableParallelism } from "node:os";

const seconds = (ms) => (ms / 1000).toFixed(1);

/** Tests a file ran: passed, failed and skipped alike (a skipped test still costs its file's set-up). */
const testsOf = (r) => r.passed + r.failed + r.skipped;

/** A file's CPU (its process and every process it started), where the runner could read it. */
const cpuOf = (r) => (r.cpuMs === undefined ? "" : `  ${seconds(r.cpuMs).padStart(6)} s CPU`);

function summary(label, runs) {
  const tests = runs.reduce((n, r) => n + testsOf(r), 0);
  const fileMs = runs.reduce((n, r) => n + r.ms, 0);
  const perTest = tests > 0 ? `${(fileMs / tests / 1000).toFixed(2)} s of file time per test` : "no tests";
  return `${label}: ${runs.length} files, ${tests} tests, ${seconds(fileMs)} s of file time, ${perTest}`;
}

/** The test processes' CPU, and how busy it kept the cores: a run near 100% is bound by CPU, not by waits. */
function cpuLine(results, wallMs) {
  const measured = results.filter((r) => r.cpuMs !== undefined);
  if (measured.length === 0 || wallMs <= 0) return [];
  const cpuMs = measured.reduce((n, r) => n + r.cpuMs, 0);
  const cores = availableParallelism();
  return [`CPU: ${seconds(cpuMs)} s in the test processes, ${Math.round((cpuMs / (wallMs * cores)) * 100)}% of ${cores} cores over the wall clock`];
}

/**
 * @param {{file: string, ms: number, cpuMs?: number, passed: number, failed: number, skipped: number}[]} results
 * @param {number} wallMs the whole run's wall-clock time
 * @param {number} [top] how many of the slowest files to list
 * @returns {string} the report, lines ending in "\n"
 */
export function timingReport(results, wallMs, top = 20) {
  const sqlite = results.filter((r) => !r.file.endsWith(" [pg]"));
  const pg = results.filter((r) => r.file.endsWith(" [pg]"));
  const tests = results.reduce((n, r) => n + testsOf(r), 0);
  const slowest = [...results].sort((a, b) => b.ms - a.ms).slice(0, top);
  const width = Math.max(0, ...slowest.map((r) => r.file.length));
  const lines = [
    `Slowest files (of ${results.length}):`,
    ...slowest.map((r) => `  ${seconds(r.ms).padStart(6)} s  ${r.file.padEnd(width)}  ${String(testsOf(r)).padStart(3)} tests${cpuOf(r)}`),
    summary("SQLite runs", sqlite),
    ...(pg.length ? [summary("PostgreSQL runs", pg)] : []),
    `Wall clock: ${seconds(wallMs)} s for ${tests} tests, ${tests > 0 ? (wallMs / tests / 1000).toFixed(2) : "-"} s per test`,
    ...cpuLine(results, wallMs),
  ];
  return lines.map((l) => `${l}\n`).join("");
}
