// A position worth less than the venue's $10 minimum order value never blocks a flatten or a close
// (docs/design.md "Enforcement"): it is closed the way Hyperliquid's own Close does it, one reduce-only
// order for the whole position, and when the exchange refuses even that, the flatten and the close go
// on and say what was left open (valued at mark in the final balance).
import { suite } from "uvu";
import * as assert from "uvu/assert";
import type { TestDaemon } from "../helpers/daemon.js";
import { waitUntil } from "../helpers/util.js";
import { longBtc, setPrice, startVaultDaemon, vaultCase, vaultDetail, vaultPost, vaultTrade, type VaultCase } from "../helpers/vaults.js";

const t = suite<{ d: TestDaemon }>("dust");
t.before(async (ctx) => {
  ctx.d = await startVaultDaemon({ staleAfter: 60, oracleInterval: 2 });
});
t.after.each(({ d }) => {
  d.daemon.sim!.setDustClosesExempt(true);
});
t.after(async (ctx) => {
  await ctx.d.close();
});

const positions = async (c: VaultCase) =>
  (await c.d.http.get(`/api/positions?vaultAddress=${c.vault}`, { token: c.tom.token })).body.data.positions as Array<{ symbol: string; size: number }>;
const eventsOf = async (c: VaultCase, type: string) =>
  ((await c.d.http.get(`/api/vaults/${c.vault}/events?limit=1000`, { token: c.ivy.token })).body.data.events as Array<{ type: string; data: any }>)
    .filter((e) => e.type === type);

/** 0.004 ETH bought at about 3 000 ($12), then ETH to 2 000: a position worth about $8. */
async function ethDust(c: VaultCase) {
  setPrice(c.d, "ETH", "3000");
  const r = await vaultTrade(c, c.tom, { symbol: "ETH", size: 0.004 });
  assert.is(r.status, 200, JSON.stringify(r.body));
  setPrice(c.d, "ETH", "2000");
  const eth = (await positions(c)).find((p) => p.symbol === "ETH");
  assert.ok(eth && eth.size === 0.004, JSON.stringify(eth));
}

async function breachAndHold(c: VaultCase) {
  setPrice(c.d, "BTC", "53000");
  await c.d.daemon.oracle.cycle();
  const v = await waitUntil(async () => {
    const x = await vaultDetail(c);
    return x.enforcement?.state === "holds" && x;
  }, { slowMs: 30_000, what: "the flatten to hold" });
  assert.is(v.paused, true);
}

t("flatten: a dust position and a normal one are both closed", async ({ d }) => {
  const c = await vaultCase(d, { breachPolicy: "flatten" });
  await longBtc(c);
  await ethDust(c);
  await breachAndHold(c);
  assert.equal(await positions(c), []);
  const [flat] = await eventsOf(c, "Flattened");
  assert.equal(flat!.data.positions.map((p: { symbol: string }) => p.symbol).sort(), ["BTC", "ETH"]);
  assert.equal(flat!.data.dust, []);
});

t("a vault holding only dust is closed by the investor, and by the trader", async ({ d }) => {
  for (const who of ["ivy", "tom"] as const) {
    const c = await vaultCase(d);
    await ethDust(c);
    const r = await vaultPost(c, "close", c[who]);
    assert.is(r.status, 200, `${who}: ${JSON.stringify(r.body)}`);
    assert.is(r.body.data.vault.status, "CLOSED");
    assert.equal(r.body.data.vault.leftOpen, [], "the whole-position close took the dust");
    assert.equal(await positions(c), []);
  }
});

t("an exchange that refuses dust for ever: the flatten holds with the dust listed, and the vault still closes", async ({ d }) => {
  d.daemon.sim!.setDustClosesExempt(false);
  const c = await vaultCase(d, { breachPolicy: "flatten" });
  await longBtc(c);
  await ethDust(c);
  await breachAndHold(c);
  assert.equal((await positions(c)).map((p) => p.symbol), ["ETH"], "only the refused dust is left");
  const [flat] = await eventsOf(c, "Flattened");
  assert.equal(flat!.data.positions.map((p: { symbol: string }) => p.symbol), ["BTC"]);
  assert.is(flat!.data.dust.length, 1);
  assert.is(flat!.data.dust[0].symbol, "ETH");
  assert.is(flat!.data.dust[0].size, "0.004");

  const r = await vaultPost(c, "close", c.ivy);
  assert.is(r.status, 200, JSON.stringify(r.body));
  const left = r.body.data.vault.leftOpen;
  assert.is(left.length, 1, JSON.stringify(left));
  assert.is(left[0].symbol, "ETH");
  assert.is(left[0].size, "0.004");
  assert.ok(Number(left[0].value) > 0 && Number(left[0].value) < 10, left[0].value);
  const [closing] = await eventsOf(c, "Flattened").then((e) => e.filter((x) => x.data.reason === "close"));
  assert.is(closing!.data.dust[0].symbol, "ETH", "the close's event says what was left");
});

t("the oracle closes a vault holding only dust at its deadline, even when the exchange refuses the dust", async ({ d }) => {
  d.daemon.sim!.setDustClosesExempt(false);
  const c = await vaultCase(d, { dealDeadline: Math.floor(d.clock() / 1000) + 120, validUntil: Math.floor(d.clock() / 1000) + 60 });
  await ethDust(c);
  d.clock.advance(150_000);
  await d.daemon.oracle.cycle();
  const v = await vaultDetail(c, c.ivy);
  assert.is(v.status, "CLOSED");
  assert.equal((await positions(c)).map((p) => p.symbol), ["ETH"], "left open, valued in the final balance");
});

t.run();
