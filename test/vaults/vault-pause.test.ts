// The risk limits through the HTTP API: a breach pauses the vault on-chain and in every view, trades
// then fail with VAULT_PAUSED, the parties (only) hear of it on their streams, and only the trader
// unpauses, once the balance has recovered. Each test builds and breaches its own vault.
import { suite } from "uvu";
import * as assert from "uvu/assert";
import type { TestDaemon } from "../helpers/daemon.js";
import { openSse, type SseReader } from "../helpers/sse.js";
import { waitUntil } from "../helpers/util.js";
import { assertEvents, breach, chainVaultState, listedVault, setPrice, startVaultDaemon, stranger, vaultCase, vaultDetail, vaultPost, vaultTrade, type VaultCase } from "../helpers/vaults.js";

const t = suite<{ d: TestDaemon; streams: SseReader[] }>("vault pause");
t.before(async (ctx) => {
  ctx.d = await startVaultDaemon({ staleAfter: 5, oracleInterval: 1 });
  ctx.streams = [];
});
t.after.each((ctx) => {
  for (const s of ctx.streams.splice(0)) s.close();
});
t.after(async (ctx) => {
  await ctx.d.close();
});

const onChainPaused = async (c: VaultCase) => (await chainVaultState(c)).paused;

t("a breach of the daily limit pauses the vault on-chain, in its detail and in both parties' lists", async ({ d }) => {
  const c = await vaultCase(d);
  // Both lists are read (and cached) before the breach, so they must follow it.
  for (const who of [c.ivy, c.tom]) assert.is((await listedVault(c, who)).paused, false);
  await breach(c);
  const v = await vaultDetail(c);
  assert.is(v.paused, true);
  assert.is(v.pauseReason, "dailyDrawdown");
  assert.ok(v.currentDailyDrawdown >= 5 && v.currentDrawdown < 10, JSON.stringify(v));
  for (const who of [c.ivy, c.tom]) {
    const row = await listedVault(c, who);
    assert.is(row.paused, true, "the list follows the pause at once");
    assert.is(row.currentBalance, v.currentBalance);
  }
  assert.is(await onChainPaused(c), true);
  await assertEvents(c, ["Paused"]);
});

t("a paused vault refuses trades with 409 VAULT_PAUSED and its resting orders are canceled", async ({ d }) => {
  const c = await vaultCase(d);
  await breach(c);
  const paused = await vaultTrade(c, c.tom, { size: 0.01 });
  assert.is(paused.status, 409);
  assert.is(paused.body.error.code, "VAULT_PAUSED");
  assert.equal((await d.http.get(`/api/orders?vaultAddress=${c.vault}`, { token: c.tom.token })).body.data.orders, []);
  await assertEvents(c, ["OrdersCanceled"]);
});

t("the pause reaches both parties' streams, in id order, and no one else's", async (ctx) => {
  const c = await vaultCase(ctx.d);
  const eve = await stranger(ctx.d);
  const [ivy, tom, other] = await Promise.all([c.ivy, c.tom, eve].map((p) => openSse(`${ctx.d.url}/api/events`, p.token)));
  ctx.streams.push(ivy!, tom!, other!);
  await breach(c);
  for (const [who, s] of [["ivy", ivy!], ["tom", tom!]] as const) {
    await waitUntil(() => s.events.some((e) => e.event === "Paused"), { what: `${who}'s Paused event` });
    const types = s.events.map((e) => e.event);
    assert.ok(types.includes("BalanceUpdated"), types.join());
    assert.ok(s.events.every((e) => e.data.vault === c.vault));
  }
  // the stranger's stream got nothing by the time the parties had everything
  assert.is(other!.events.length, 0);
  const ids = ivy!.events.map((e) => e.id);
  assert.equal(ids, [...ids].sort((a, b) => a - b), "ids increase");
});

t("unpause: investor 403, stranger 404, the trader refused (409 NOT_RECOVERED) until recovered", async ({ d }) => {
  const c = await vaultCase(d);
  const eve = await stranger(d);
  await breach(c);
  assert.is((await vaultPost(c, "unpause", c.ivy)).status, 403);
  assert.is((await vaultPost(c, "unpause", eve)).status, 404);
  const early = await vaultPost(c, "unpause", c.tom);
  assert.is(early.status, 409);
  assert.is(early.body.error.code, "NOT_RECOVERED");
  // Where the balance stands against each limit, in words, not the contract's revert name.
  assert.match(early.body.error.message, /daily drawdown \d+(\.\d+)?% \(limit 5%\)/);
  assert.not.match(early.body.error.message, /NotRecovered/);
  assert.is(early.body.error.details.dailyDrawdown, 5);
  assert.is(await onChainPaused(c), true);
});

t("unpause by the trader after recovery: the detail, the list and the chain follow", async ({ d }) => {
  const c = await vaultCase(d);
  await breach(c);
  assert.is((await listedVault(c, c.ivy)).paused, true, "read (and cached) while paused");
  setPrice(d, "BTC", "66000");
  const ok = await vaultPost(c, "unpause", c.tom);
  assert.is(ok.status, 200, JSON.stringify(ok.body));
  assert.is(ok.body.data.vault.paused, false);
  assert.is((await listedVault(c, c.ivy)).paused, false);
  assert.is(await onChainPaused(c), false);
  await assertEvents(c, ["Unpaused"]);
});

t.run();
