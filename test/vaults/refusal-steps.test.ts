// A paused vault's refusals say what its parties can do next in the asker's words: the route with the
// vault's address for any client, the command for the CLI (as a user runs it, bin/tradevault), the
// button for the dashboard; the steps as data in details.next. The unpause refusal of a breached
// daily limit names the 00:00 UTC reset that clears it.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { nextUtcMidnight } from "../../daemon/vaults/refusals.js";
import { packageRoot } from "../../daemon/lib/package-root.js";
import { cliParty, spawnCli } from "../helpers/cli.js";
import { createVault, party, type TestDaemon } from "../helpers/daemon.js";
import { tempDir } from "../helpers/util.js";
import { breach, startVaultDaemon, vaultCase, vaultPost } from "../helpers/vaults.js";

const t = suite<{ d: TestDaemon }>("refusal steps");
t.before(async (ctx) => {
  ctx.d = await startVaultDaemon();
});
t.after(async (ctx) => {
  await ctx.d.close();
});

const client = (name: string) => ({ "X-Tradevault-Client": name });

t("an order on a paused vault: the routes by default, the commands for the CLI, the buttons for the dashboard", async ({ d }) => {
  const c = await vaultCase(d);
  await breach(c);
  const asked = async (headers: Record<string, string>) => {
    const r = await d.http.post("/api/trade", { symbol: "BTC", side: "buy", size: 0.01, vaultAddress: c.vault }, { token: c.tom.token, headers });
    assert.is(r.status, 409, JSON.stringify(r.body));
    assert.is(r.body.error.code, "VAULT_PAUSED");
    // The figures it always gave, and the steps as data, the same for every client.
    assert.is(r.body.error.details.breachPolicy, "pause");
    assert.is(r.body.error.details.dailyDrawdown, 5);
    assert.equal(r.body.error.details.next, [{ action: "closeVault", vault: c.vault }, { action: "unpauseVault", vault: c.vault }]);
    assert.match(r.body.error.message, /^the vault was paused by its risk limits \(breach policy pause\): drawdown [\d.]+% \(limit 10%\), daily drawdown [\d.]+% \(limit 5%\); either party may close the vault/);
    return r.body.error.message as string;
  };
  for (const message of [await asked({}), await asked(client("something-else"))]) {
    assert.match(message, `. To close the vault: POST /api/vaults/${c.vault}/close; for the trader to unpause it: POST /api/vaults/${c.vault}/unpause`);
    assert.not.match(message, /tradevault |button|:address/);
  }
  const cli = await asked(client("cli"));
  assert.match(cli, `. To close the vault: npx tradevault vaults close ${c.vault}; for the trader to unpause it: npx tradevault vaults unpause ${c.vault}`);
  assert.not.match(cli, /\/api\//);
  const dashboard = await asked(client("dashboard"));
  assert.match(dashboard, ". To close the vault: the Close vault button on the vault's page (Vaults tab); for the trader to unpause it: the Unpause button on the vault's page (Vaults tab)");
  assert.not.match(dashboard, /\/api\/|tradevault /);
});

t("unpause refused while the daily limit is breached: when its day resets, in words and in details (Unix seconds)", async ({ d }) => {
  const c = await vaultCase(d);
  await breach(c);
  const before = Math.floor(d.clock() / 1000);
  const r = await vaultPost(c, "unpause", c.tom);
  const after = Math.floor(d.clock() / 1000);
  assert.is(r.status, 409, JSON.stringify(r.body));
  assert.is(r.body.error.code, "NOT_RECOVERED");
  const resetAt = r.body.error.details.dailyResetAt as number;
  // The next 00:00 UTC after the refusal (read on the daemon's clock, which the chain's follows).
  assert.ok([nextUtcMidnight(before), nextUtcMidnight(after)].includes(resetAt), `${resetAt}`);
  assert.is(resetAt % 86_400, 0);
  const iso = new Date(resetAt * 1000).toISOString().replace(".000Z", "Z");
  assert.match(r.body.error.message, `the daily limit's day resets at 00:00 UTC, next at ${iso} (in `);
  const [, hours, minutes] = /\(in (?:(\d+) h )?(\d+) min\)/.exec(r.body.error.message) ?? [];
  const left = Number(hours ?? 0) * 3600 + Number(minutes) * 60;
  assert.ok(left <= resetAt - before && left > resetAt - after - 60, `${left} s left of ${resetAt - before}: ${r.body.error.message}`);
  assert.match(r.body.error.message, "when the day starts again from the balance then: unpause after it, or close the vault");
  assert.equal(r.body.error.details.next, [{ action: "closeVault", vault: c.vault }]);
  assert.match(r.body.error.message, `To close the vault: POST /api/vaults/${c.vault}/close`);
});

t("the CLI, as a user runs it, shows the commands: an order and an unpause refused on a paused vault", async ({ d }) => {
  assert.ok(existsSync(join(packageRoot(), "dist", "cli", "main.js")), "dist/ is missing: run npm run build:ts");
  const home = tempDir("tv-refusal-");
  try {
    const ivy = await party(d, { usdc: 10_000, agent: true });
    const tom = await cliParty(d, home.path);
    const c = { d, ivy, tom, vault: await createVault(d, ivy, tom) };
    await breach(c);
    const env = { TRADEVAULT_HOME: home.path, TRADEVAULT_URL: d.url };
    const order = await spawnCli(["buy", "BTC", "0.01", "--vault", c.vault, "--yes"], env);
    assert.is(order.code, 1, order.stderr);
    assert.match(order.stderr, /^tradevault: the vault was paused by its risk limits/);
    assert.match(order.stderr, `To close the vault: npx tradevault vaults close ${c.vault}; for the trader to unpause it: npx tradevault vaults unpause ${c.vault}`);
    assert.not.match(order.stderr, /\/api\//);
    const unpause = await spawnCli(["vaults", "unpause", c.vault], env);
    assert.is(unpause.code, 1, unpause.stderr);
    assert.match(unpause.stderr, "the daily limit's day resets at 00:00 UTC");
    assert.match(unpause.stderr, `To close the vault: npx tradevault vaults close ${c.vault}`);
    // The command it names works as written (here by the trader).
    const closed = await spawnCli(["vaults", "close", c.vault, "--json"], env);
    assert.is(closed.code, 0, closed.stderr);
    assert.is(JSON.parse(closed.stdout).data.vault.status, "CLOSED");
  } finally {
    home.remove();
  }
});

t.run();
