// Test daemons started from the run's data-directory template (data-template.ts) are as separate as
// daemons started from nothing: each has its own folder, database and chain, and owner-only keys.
// (Speed is what the template is for; what must not change is that no test sees another's records.)
import { test } from "uvu";
import * as assert from "uvu/assert";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { signIn, randomWallet, startTestDaemon, trader } from "./daemon.js";
import { storeKind } from "./stores.js";
import { tempDir } from "./util.js";

// This file's own template folder, so it sees the template being made whether or not the runner set one.
const templates = tempDir("tradevault-templates-test-");
process.env.TRADEVAULT_TEST_TEMPLATES = templates.path;

const mode = (path: string) => statSync(path).mode & 0o777;
const height = async (d: Awaited<ReturnType<typeof startTestDaemon>>) => d.daemon.chain.provider.getBlockNumber();

test("two daemons from one template: one template made, two folders, two databases, two chains, owner-only keys", async () => {
  const a = await startTestDaemon();
  const b = await startTestDaemon();
  try {
    const made = readdirSync(templates.path);
    assert.is(made.length, storeKind === "sqlite" ? 1 : 0, made.join());
    assert.is.not(a.dataDir, b.dataDir);
    assert.equal(a.daemon.chain.addresses, b.daemon.chain.addresses, "the same deployment, copied");

    const { token } = await signIn(a.http, randomWallet());
    assert.is((await a.http.get("/api/account", { token })).status, 200);
    assert.is((await b.http.get("/api/account", { token })).status, 401, "a session made on one is not in the other's database");

    const before = await height(b);
    await trader(a); // moves a's chain
    assert.ok((await height(a)) > before, "a's chain moved");
    assert.is(await height(b), before, "b's chain did not");

    for (const d of [a, b]) {
      assert.is(mode(join(d.dataDir, "keys")), 0o700);
      assert.is(mode(join(d.dataDir, "keys", "operator.key")), 0o600);
      assert.is(mode(join(d.dataDir, "keys", "secret.key")), 0o600);
    }
  } finally {
    await a.close();
    await b.close();
  }
});

test("a setting that shapes the data directory gets a template of its own", async () => {
  const d = await startTestDaemon({ config: { simControls: "operator" } });
  try {
    assert.is(readdirSync(templates.path).length, storeKind === "sqlite" ? 2 : 0);
  } finally {
    await d.close();
  }
});

test.after(() => templates.remove());

test.run();
