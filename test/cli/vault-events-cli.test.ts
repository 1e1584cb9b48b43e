// `tradevault vaults events`: unchanged balance readings in a row are one line with their count and
// span, so the Paused event between them stands out; --json keeps every event.
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { cliParty, runCli } from "../helpers/cli.js";
import { createVault, party, type TestDaemon } from "../helpers/daemon.js";
import { tempDir } from "../helpers/util.js";
import { longBtc, setPrice, startVaultDaemon, vaultEventTypes } from "../helpers/vaults.js";

const t = suite<{ d: TestDaemon; home: ReturnType<typeof tempDir> }>("vault events cli");
t.before(async (ctx) => {
  ctx.d = await startVaultDaemon();
  ctx.home = tempDir("tv-events-");
});
t.after(async (ctx) => {
  await ctx.d.close();
  ctx.home.remove();
});

t("a pause between runs of unchanged readings: two folded lines and the pause between them; --json has them all", async ({ d, home }) => {
  const ivy = await party(d, { usdc: 10_000, agent: true });
  const tom = await cliParty(d, home.path);
  const c = { d, ivy, tom, vault: await createVault(d, ivy, tom) };
  await longBtc(c);
  for (let i = 0; i < 4; i++) await d.daemon.oracle.cycle();
  setPrice(d, "BTC", "53000");
  for (let i = 0; i < 3; i++) await d.daemon.oracle.cycle();
  const env = { TRADEVAULT_HOME: home.path, TRADEVAULT_URL: d.url };

  const json = await runCli(["vaults", "events", c.vault, "--json"], env);
  assert.is(json.code, 0, json.stderr);
  const events = json.json.data.events as Array<{ id: number; type: string; data: Record<string, unknown> }>;
  assert.equal(events.map((e) => e.type), await vaultEventTypes(c), "--json lists every event the API lists");
  const readings = events.filter((e) => e.type === "BalanceUpdated");
  assert.ok(readings.length >= 7, `${readings.length} readings`);

  const listed = await runCli(["vaults", "events", c.vault], env);
  assert.is(listed.code, 0, listed.stderr);
  const rows = listed.stdout.trim().split("\n").slice(1);
  const folded = rows.filter((r) => /\(×\d+, \d\d:\d\d(:\d\d)?(–\d\d:\d\d(:\d\d)?)?\)$/.test(r));
  assert.is(folded.length, 2, listed.stdout);
  // Newest first: the readings after the pause, the pause, the readings before it.
  const at = (re: RegExp) => rows.findIndex((r) => re.test(r));
  const after = rows.indexOf(folded[0]!);
  const paused = at(/paused: daily drawdown/);
  const before = rows.indexOf(folded[1]!);
  assert.ok(after < paused && paused < before, listed.stdout);
  // Each folded run: as many readings as --json has with those figures in a row, ids from oldest to newest.
  const same = (a: Record<string, unknown>, b: Record<string, unknown>) => JSON.stringify({ ...a, observedAt: 0 }) === JSON.stringify({ ...b, observedAt: 0 });
  const runs: Array<typeof events> = [];
  for (const e of events) {
    const last = runs.at(-1);
    if (e.type === "BalanceUpdated" && last?.[0]?.type === "BalanceUpdated" && same(last[0].data, e.data)) last.push(e);
    else runs.push([e]);
  }
  const long = runs.filter((r) => r.length > 1);
  assert.is(long.length, 2);
  for (const [i, run] of long.entries()) {
    assert.match(folded[i]!, new RegExp(`^${run.at(-1)!.id}–${run[0]!.id}\\s`));
    assert.match(folded[i]!, `(×${run.length}, `);
  }
  assert.is(rows.length, runs.length, "one line per run, one per other event");
});

t.run();
