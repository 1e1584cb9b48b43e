// `npm test` without a Chromium: each browser test fails with one line naming the fix (CI must run
// them, so they never pass by being left out), or is skipped when TEST_SKIP_BROWSER=1 asks for it.
// (uvu hides an error thrown in a `before` hook, which is where the browser tests launch Chromium.)
// With TRADEVAULT_TEST_PG=1 the PostgreSQL suites' files run twice, and fail without a server.
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

test("the run ends with its slowest files and the mean time per test, printed before the last line and written to a file", () => {
  const dir = tempDir();
  try {
    const reportPath = join(dir.path, "times.txt");
    const r = runTests({ TEST_REPORT_PATH: reportPath, TRADEVAULT_TEST_TEMPLATES: "" }, ["test/lib/decimal", "test/db/integers"]);
    assert.is(r.code, 0, r.out);
    const report = readFileSync(reportPath, "utf8");
    const lines = r.out.trimEnd().split("\n");
    // The report is the block just before the blank line and the "N passed" line CI reads.
    assert.equal(lines.slice(-2 - report.trimEnd().split("\n").length, -2).join("\n"), report.trimEnd());
    const files = report.split("\n").filter((l) => l.includes(".test.ts")).map((l) => l.trim().split(/\s+/));
    assert.equal(files.map((f) => f[2]).sort(), ["test/db/integers.test.ts", "test/lib/decimal.test.ts"]);
    const seconds = files.map((f) => Number(f[0]));
    assert.ok(seconds[0]! >= seconds[1]!, "slowest first");
    const tests = (r.last.match(/^(\d+) passed/) ?? [])[1];
    assert.match(report, new RegExp(`^SQLite runs: 2 files, ${tests} tests, [\\d.]+ s of file time, [\\d.]+ s of file time per test$`, "m"));
    assert.match(report, new RegExp(`^Wall clock: [\\d.]+ s for ${tests} tests, [\\d.]+ s per test$`, "m"));
    if (process.platform === "linux") {
      // Each file's CPU (its process and every process it started) and the run's, read from /proc.
      for (const f of files) assert.ok(f[7] === "CPU" && Number(f[5]) > 0, f.join(" "));
      assert.match(report, /^CPU: [\d.]+ s in the test processes, \d+% of \d+ cores over the wall clock$/m);
    }
    // Each file's time is kept for the next run's order (slowest first).
    assert.equal(Object.keys(JSON.parse(readFileSync(join(dir.path, "test-times.json"), "utf8"))).sort(), ["test/db/integers.test.ts", "test/lib/decimal.test.ts"]);
  } finally {
    dir.remove();
  }
});

test.run();
