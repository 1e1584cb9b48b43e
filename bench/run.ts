// npm run bench [-- <name>...] [--no-write] [--append="<section title>"]
// Runs the benchmarks (all, or the named ones) one after another at full size, prints the table and
// each benchmark's notes, and, when all of them ran, puts them at the head of bench/RESULTS.md in
// place of the last full run's (unless --no-write); the sections after it, the journal, stay.
// With --append, the named ones' table and notes are added to the end of RESULTS.md as a section of
// their own (the rest of the file left as it is), when every one of them ran.
import { execFileSync } from "node:child_process";
import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { BENCHMARKS } from "./benchmarks.js";
import { fmt, machine, markdownTable, textTable, type BenchResult } from "./lib/report.js";

const args = process.argv.slice(2);
const names = args.filter((a) => !a.startsWith("--"));
const unknown = names.filter((n) => !BENCHMARKS.some((b) => b.name === n));
if (unknown.length > 0) {
  console.error(`unknown benchmark ${unknown.join(", ")}; known: ${BENCHMARKS.map((b) => b.name).join(", ")}`);
  process.exit(2);
}
const append = args.find((a) => a.startsWith("--append="))?.slice("--append=".length);
const chosen = names.length === 0 ? BENCHMARKS : BENCHMARKS.filter((b) => names.includes(b.name));
const load = () => loadavg().map((l) => l.toFixed(2)).join(" ");

function commit(): string {
  try {
    const root = fileURLToPath(new URL("..", import.meta.url));
    const head = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: root, encoding: "utf8" }).trim();
    const dirty = execFileSync("git", ["status", "--porcelain", "--", "daemon"], { cwd: root, encoding: "utf8" }).trim() !== "";
    return `${head}${dirty ? " (daemon/ with uncommitted changes)" : ""}`;
  } catch {
    return "unknown";
  }
}

const started = Date.now();
const loadBefore = load();
const results: BenchResult[] = [];
const failures: string[] = [];
for (const b of chosen) {
  process.stdout.write(`running ${b.name}...\n`);
  try {
    const r = await b.full();
    results.push(r);
    process.stdout.write(`  done in ${fmt(r.seconds)} s\n`);
  } catch (err) {
    failures.push(`${b.name}: ${err instanceof Error ? err.message : String(err)}`);
    process.stdout.write(`  FAILED: ${failures[failures.length - 1]}\n`);
  }
}
const seconds = (Date.now() - started) / 1000;

const notes = (r: BenchResult) => [`${r.name} (${r.setup}; ${fmt(r.seconds)} s):`, ...r.notes.map((n) => `  - ${n}`)].join("\n");
console.log(`\n${machine()}; load average before ${loadBefore}, after ${load()}; ${fmt(seconds)} s in all\n`);
console.log(textTable(results));
console.log(`\n${results.map(notes).join("\n")}`);
if (failures.length > 0) console.log(`\nFailed:\n  ${failures.join("\n  ")}`);

const ran = (what: string) => [
  `${what} on ${new Date().toISOString().slice(0, 10)}: ${machine()}; commit ${commit()}.`,
  `Load average (1, 5, 15 min) ${loadBefore} before, ${load()} after; the whole run took ${fmt(seconds)} s.`,
  "Every figure is the median of the runs shown; the baseline was measured in the same run. See docs/benchmarks.md for what each one measures.",
];
const notesOf = (heading: string) => [heading, "", ...results.flatMap((r) => [`**${r.name}** (${r.setup}; ${fmt(r.seconds)} s)`, "", ...r.notes.map((n) => `- ${n}`), ""])];

const resultsPath = new URL("./RESULTS.md", import.meta.url);
/** What follows the last full run's own notes in RESULTS.md: every appended section and the findings. */
function journal(): string {
  if (!existsSync(resultsPath)) return "";
  const old = readFileSync(resultsPath, "utf8");
  const notes = old.indexOf("\n## Notes");
  const next = notes < 0 ? -1 : old.indexOf("\n## ", notes + 1);
  return next < 0 ? "" : `\n${old.slice(next)}`;
}

// A profiled run is slowed by the profiler: its figures do not go into RESULTS.md.
const writable = !args.includes("--no-write") && !process.env.BENCH_PROFILE && failures.length === 0;
if (writable && append !== undefined && names.length > 0) {
  const md = ["", `## ${append}`, "", ...ran(`\`npm run bench -- ${names.join(" ")}\``), "", markdownTable(results), "", ...notesOf("### Notes")];
  appendFileSync(resultsPath, md.join("\n"));
  console.log(`\nadded "${append}" to bench/RESULTS.md`);
} else if (writable && names.length === 0) {
  const md = ["# Benchmark results", "", ...ran("One run of `npm run bench`"), "", markdownTable(results), "", ...notesOf("## Notes")];
  writeFileSync(resultsPath, md.join("\n") + journal());
  console.log("\nwrote bench/RESULTS.md");
}
process.exitCode = failures.length > 0 ? 1 : 0;
