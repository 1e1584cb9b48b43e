import { test } from "uvu";
import * as assert from "uvu/assert";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { packageRoot } from "../../daemon/lib/package-root.js";
import { freePort, waitUntil } from "./util.js";

test("packageRoot finds the tradevault package", () => {
  assert.ok(existsSync(join(packageRoot(), "hardhat.config.cjs")));
});

test("freePort gives a usable loopback port", async () => {
  const port = await freePort();
  assert.ok(port > 0 && port < 65536);
});

test("waitUntil returns the first truthy value and times out otherwise", async () => {
  let n = 0;
  assert.is(await waitUntil(() => (++n >= 3 ? n : 0), { intervalMs: 1 }), 3);
  try {
    await waitUntil(() => false, { timeoutMs: 30, intervalMs: 5, what: "never" });
    assert.unreachable("should time out");
  } catch (e) {
    assert.match(String(e), /never/);
  }
});

test.run();
