// tradevault prices [symbol], as a user runs it (bin/tradevault), against a daemon and its sim: every
// market's mid price or one, a table or --json, an unknown symbol a usage error (exit 2).
import { existsSync } from "node:fs";
import { join } from "node:path";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { packageRoot } from "../../daemon/lib/package-root.js";
import * as responses from "../../daemon/http/responses.js";
import { runCli, seedWallet, spawnCli } from "../helpers/cli.js";
import { randomWallet, signIn, startTestDaemon, type TestDaemon } from "../helpers/daemon.js";
import { tempDir } from "../helpers/util.js";
import { BUSY_MACHINE } from "../helpers/busy-machine.js";

const t = suite<{ d: TestDaemon; home: ReturnType<typeof tempDir>; env: Record<string, string> }>("prices cli");
t.before(async (ctx) => {
  assert.ok(existsSync(join(packageRoot(), "dist", "cli", "main.js")), "dist/ is missing: run npm run build:ts");
  ctx.d = await startTestDaemon({ config: BUSY_MACHINE });
  ctx.home = tempDir("tv-prices-");
  ctx.env = { TRADEVAULT_HOME: ctx.home.path, TRADEVAULT_URL: ctx.d.url, TRADEVAULT_PASSWORD: "pw" };
  await seedWallet(ctx.home.path, "pat", "pw");
  assert.is((await runCli(["login"], ctx.env)).code, 0);
  // Prices no other test of this daemon sets: what the command shows is the sim's, not a default.
  ctx.d.daemon.sim!.setPrice("BTC", "61234.5");
  ctx.d.daemon.sim!.setPrice("ETH", "3012.25");
});
t.after(async (ctx) => {
  await ctx.d.close();
  ctx.home.remove();
});

t("every market in a table, as the daemon's GET /api/prices gives them", async ({ d, env }) => {
  const { token } = await signIn(d.http, randomWallet());
  const api = (await d.http.get("/api/prices", { token })).body.data.prices as Record<string, string>;
  const r = await spawnCli(["prices"], env);
  assert.is(r.code, 0, r.stderr);
  const lines = r.stdout.trim().split("\n");
  assert.match(lines[0]!, /^SYMBOL\s+MID PRICE$/);
  assert.equal(lines.slice(1).map((l) => l.split(/\s+/)), Object.entries(api));
  assert.match(r.stdout, /^BTC\s+61234\.5$/m);
  assert.match(r.stdout, /^ETH\s+3012\.25$/m);
});

t("one market by name, in any case; --json is the API's object, narrowed to it", async ({ env }) => {
  const one = await spawnCli(["prices", "eth"], env);
  assert.is(one.code, 0, one.stderr);
  assert.equal(one.stdout.trim().split("\n").slice(1), ["ETH     3012.25"]);
  const json = await spawnCli(["prices", "BTC", "--json"], env);
  assert.is(json.code, 0, json.stderr);
  const doc = JSON.parse(json.stdout);
  assert.equal(doc, { ok: true, data: { prices: { BTC: "61234.5" } } });
  responses.prices.parse(doc.data);
  const all = JSON.parse((await spawnCli(["prices", "--json"], env)).stdout);
  assert.equal(Object.keys(all.data.prices), ["BTC", "ETH", "SOL"]);
});

t("an unknown symbol is a usage error (exit 2) naming the markets there are", async ({ env }) => {
  const r = await spawnCli(["prices", "DOGE"], env);
  assert.is(r.code, 2, r.stderr);
  assert.is(r.stdout, "");
  assert.is(r.stderr, 'tradevault: the exchange lists no market "DOGE" (its markets: BTC, ETH, SOL)\n');
  const json = await spawnCli(["prices", "DOGE", "--json"], env);
  assert.is(json.code, 2);
  assert.is(JSON.parse(json.stdout).error.code, "USAGE");
});

t("not signed in: exit 4, as every command that needs a session", async ({ d }) => {
  const home = tempDir("tv-prices-none-");
  try {
    const r = await spawnCli(["prices"], { TRADEVAULT_HOME: home.path, TRADEVAULT_URL: d.url });
    assert.is(r.code, 4, r.stderr);
  } finally {
    home.remove();
  }
});

t.run();
