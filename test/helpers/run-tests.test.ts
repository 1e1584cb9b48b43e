// `npm test` without a Chromium: each browser test fails with one line naming the fix (CI must run
// them, so they never pass by being left out), or is skipped when TEST_SKIP_BROWSER=1 asks for it.
// (uvu hides an error thrown in a `before` hook, which is where the browser tests launch Chromium.)
// With TRADEVAULT_TEST_PG=1 the PostgreSQL suites' files run twice, and fail without a server.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { packageRoot } from "../../daemon/lib/package-root.js";

const runTests = (env: Record<string, string>, files = ["test/browser/sim-controls", "test/contract/frontend-recipes"]) => {
  const r = spawnSync(process.execPath, [join(packageRoot(), "scripts", "run-tests.js"), ...files], {
    cwd: packageRoot(), env: { ...process.env, TEST_SKIP_BROWSER: "", ...env }, encoding: "utf8", timeout: 60_000,
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

test.run();
