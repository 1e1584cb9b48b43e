// `npm test` without a Chromium: each browser test fails with one line naming the fix (CI must run
// them, so they never pass by being left out), or is skipped when TEST_SKIP_BROWSER=1 asks for it.
// (uvu hides an error thrown in a `before` hook, which is where the browser tests launch Chromium.)
// With TRADEVAULT_TEST_PG=1 the PostgreSQL suites' files run twice, and fail without a server. The
// run ends with its slowest files, and --folder runs another folder (the benchmarks' smoke tests).
import { test } from "uvu";
import * as assert from "uvu/assert";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { packageRoot } from "../../daemon/lib/package-root.js";
import { tempDir } from "./util.js";

const runTests = (env: Record<string, string>, files = ["test/browser/sim-controls", "test/contract/frontend-recipes"]) => {
  const r = spawnSync(process.execPath, [join(packageRoot(), "scripts", "run-tests.js"), ...files], {
    cwd: packageRoot(), env: { ...process.env, TEST_SKIP_BROWSER: "", ...env }, encoding: "utf8",
  });
  return { code: r.status, out: r.stdout + r.stderr, last: (r.stdout.trim().split("\n").at(-1) ?? "") };
};

test("without Chromium, each browser test fails in one line that says how to get one; no daemon is started", () => {
  const r = runTests({ CHROMIUM_PATH: "/nonexistent/chromium" });
  assert.is(r.code, 1);
  assert.is(r.last, "0 passed, 2 failed");
  const lines = r.out.split("\n").filter((l) => l.includes("needs Chromium"));
  assert.is(lines.length, 2, r.out);
  for (const l of lines) {
    assert.match(l, "CHROMIUM_PATH=/nonexistent/chromium does not exist");
    assert.match(l, "apt-get install chromium");
    assert.match(l, "TEST_SKIP_BROWSER=1");
  }
});

test("TEST_SKIP_BROWSER=1 leaves them out on purpose, and says so", () => {
  const r = runTests({ CHROMIUM_PATH: "/nonexistent/chromium", TEST_SKIP_BROWSER: "1" });
  assert.is(r.code, 0);
  assert.is(r.last, "0 passed, 0 failed, 2 skipped");
  assert.is(r.out.split("\n").filter((l) => l.includes("skipped: needs Chromium")).length, 2, r.out);
});

test("TRADEVAULT_TEST_PG=1: a store suite's file runs again as '[pg]', which fails in one line without a PostgreSQL server", () => {
  const r = runTests(
    { TRADEVAULT_TEST_PG: "1", TRADEVAULT_TEST_PG_BIN: "/nonexistent", TRADEVAULT_TEST_PG_URL: "" },
    ["test/db/integers", "test/contract/frontend-recipes"],
  );
  const ran = r.out.split("\n").filter((l) => l.startsWith("=== ")).map((l) => l.replace(/ \(.*$/, "")).sort();
  assert.equal(ran, ["=== test/contract/frontend-recipes.test.ts", "=== test/db/integers.test.ts", "=== test/db/integers.test.ts [pg]"], r.out);
  const lines = r.out.split("\n").filter((l) => l.includes("needs PostgreSQL"));
  assert.is(lines.length, 1, r.out);
  assert.match(lines[0]!, "TRADEVAULT_TEST_PG_BIN=/nonexistent has no initdb");
  assert.match(lines[0]!, "apt-get install postgresql");
  assert.match(r.last, /^\d+ passed, 1 failed$/);
  assert.is(r.code, 1);
});

test("the files run as JavaScript from a transpiled copy; TEST_TSX=1 runs them through tsx, to the same result", () => {
  const tsx = runTests({ TEST_TSX: "1" }, ["test/lib/decimal"]);
  assert.is(tsx.code, 0, tsx.out);
  assert.match(tsx.last, /^\d+ passed, 0 failed$/);
  assert.match(tsx.out, /^\[run-tests\] the files run through tsx$/m);
  const copy = runTests({}, ["test/lib/decimal"]);
  assert.is(copy.last, tsx.last);
  assert.match(copy.out, /^\[run-tests\] the files run as JavaScript from \S+tradevault-test-tree-\w+ /m);
});

test("the run ends with its slowest files and its wall clock before the last line, and keeps each file's time for the next run's order", () => {
  const dir = tempDir();
  try {
    const timesPath = join(dir.path, "times.json");
    const r = runTests({ TEST_TIMES_PATH: timesPath, TRADEVAULT_TEST_TEMPLATES: "" }, ["test/lib/decimal", "test/db/integers"]);
    assert.is(r.code, 0, r.out);
    const lines = r.out.trimEnd().split("\n");
    // The report is the block just before the blank line and the "N passed" line CI reads.
    const report = lines.slice(lines.lastIndexOf("Slowest files (of 2):"), -2);
    assert.is(report.length, 4, r.out);
    const files = report.slice(1, 3).map((l) => l.trim().split(/\s+/));
    assert.equal(files.map((f) => f[2]).sort(), ["test/db/integers.test.ts", "test/lib/decimal.test.ts"]);
    assert.ok(Number(files[0]![0]) >= Number(files[1]![0]), "slowest first");
    const tests = (r.last.match(/^(\d+) passed/) ?? [])[1];
    assert.match(report[3]!, new RegExp(`^Wall clock: [\\d.]+ s for ${tests} tests in 2 files$`));
    assert.equal(Object.keys(JSON.parse(readFileSync(timesPath, "utf8"))).sort(), ["test/db/integers.test.ts", "test/lib/decimal.test.ts"]);
  } finally {
    dir.remove();
  }
});

test("--folder runs another folder's files (npm run bench:smoke: bench/smoke/, which npm test leaves out)", () => {
  const lib = runTests({}, ["--folder", "test/lib", "decimal"]);
  assert.is(lib.code, 0, lib.out);
  assert.match(lib.out, /^=== test\/lib\/decimal\.test\.ts /m);
  const none = runTests({ TEST_SKIP_BROWSER: "1" }, ["bench/smoke"]);
  assert.match(none.out, /no test files matched/, "npm test finds none of the smoke tests");
  assert.is(none.code, 1);
});

test.run();
