/// <reference lib="dom" />
// A paused vault's page in a real browser against a real daemon offers only what the daemon takes:
// under `pause` no order form (why, and what the parties can do, in its place) and no Close, the
// standing against each limit beside Unpause (a daily breach with the time its day resets), the
// daemon's refusal shown as it is, and the form back once unpaused; under `reduce-only` a form that
// sends only reduce-only orders on the side that reduces, and Close.
import * as assert from "uvu/assert";
import type { Request } from "playwright-core";
import { createVault } from "../helpers/daemon.js";
import { waitUntil } from "../helpers/util.js";
import { expectNotice, go } from "./helpers/pages.js";
import { vaultPageSuite, type VaultPageCtx } from "./helpers/vault-parties.js";

const t = vaultPageSuite("paused vault");
const DASHBOARD = { "X-Tradevault-Client": "dashboard" };

/** The vault as the API gives it to the investor. */
async function detail(ctx: VaultPageCtx, vault = ctx.p.vault) {
  const r = await ctx.d.http.get(`/api/vaults/${vault}`, { token: ctx.p.api.ivy.token });
  assert.is(r.status, 200, JSON.stringify(r.body));
  return r.body.data.vault;
}

/** Long 0.1 BTC at 60,000, then BTC to 53,000 and a reading: about -700 on 10,000, past the 5% daily limit only. */
async function breachDaily(ctx: VaultPageCtx, vault: string) {
  const { d, p } = ctx;
  d.daemon.sim!.setPrice("BTC", "60000");
  const bought = await d.http.post("/api/trade", { symbol: "BTC", side: "buy", size: 0.1, vaultAddress: vault }, { token: p.api.tom.token });
  assert.is(bought.status, 200, JSON.stringify(bought.body));
  await d.daemon.oracle.cycle();
  d.daemon.sim!.setPrice("BTC", "53000");
  await d.daemon.oracle.cycle();
  const v = await detail(ctx, vault);
  assert.equal([v.paused, v.pauseReason], [true, "dailyDrawdown"], JSON.stringify(v));
  return v;
}

t("under pause: no order form and no Close, why and what to do instead; Unpause beside the standing; the form back once unpaused", async (ctx) => {
  const { d, p } = ctx;
  const { tom, ivy } = p;
  await go(tom, `#vault/${p.vault}`, "#order-form");
  await go(ivy, `#vault/${p.vault}`, "#vault-status");
  const v = await breachDaily(ctx, p.vault);

  // The trader's page was open: the pause reaches it live, and the form goes.
  await tom.page.waitForSelector("#order-blocked");
  assert.is(await tom.page.locator("#order-form").count(), 0);
  const blocked = (await tom.page.textContent("#order-blocked"))!;
  assert.match(blocked, /paused: its daily drawdown reached the limit/);
  assert.match(blocked, /breach policy \(pause\) takes no new order while paused, not even a reduce-only one or a position's Close/);
  assert.match(blocked, /Either party can close the vault .*; the trader can unpause it once the balance is back inside both limits\./);
  await tom.page.waitForSelector("#positions tbody tr");
  assert.is(await tom.page.locator("#positions [data-close]").count(), 0, "Close is a reduce-only order: refused under pause");
  // What the page leaves out, the daemon refuses.
  const reduce = await d.http.post("/api/positions/close", { symbol: "BTC", vaultAddress: p.vault }, { token: p.api.tom.token });
  assert.equal([reduce.status, reduce.body.error?.code], [409, "VAULT_PAUSED"]);

  // The standing at the last reading, each limit in words; the daily one resets at the next UTC midnight.
  const reset = new Date((Math.floor(v.lastBalanceUpdate / 86_400) + 1) * 86_400_000).toISOString().slice(0, 10);
  assert.is(await tom.page.textContent("#standing-max"), `Drawdown ${v.currentDrawdown}% of its 10% limit: inside`);
  assert.match((await tom.page.textContent("#standing-daily"))!,
    new RegExp(`^Daily drawdown ${v.currentDailyDrawdown}% of its 5% limit: still breached\\. Its day resets at 00:00 UTC, ${reset} 00:00 UTC \\(in \\d+ (s|min|h)\\), when the new day's first reading starts it again from 0$`));
  assert.match((await tom.page.textContent("#unpause-standing"))!, /^A limit is still breached at the last reading/);
  assert.match((await tom.page.textContent("#standing-age"))!, /^reading \d+ (s|min) ago$/);
  assert.is(await ivy.page.locator("#vault-unpause").count(), 0, "only the trader unpauses");
  await ivy.page.waitForSelector("#standing-daily");

  // Unpause while breached: the daemon's refusal, word for word as it gives it to the dashboard.
  await tom.page.click("#vault-unpause");
  await tom.page.waitForSelector("#error:not([hidden])");
  const direct = await d.http.post(`/api/vaults/${p.vault}/unpause`, {}, { token: p.api.tom.token, headers: DASHBOARD });
  assert.is(direct.status, 409, JSON.stringify(direct.body));
  assert.is(await tom.page.textContent("#error"), `${direct.body.error.message} (${direct.body.error.code})`);

  // Recovered: the next reading says so on the open page, and Unpause brings the form back.
  d.daemon.sim!.setPrice("BTC", "60000");
  await d.daemon.oracle.cycle();
  await tom.page.waitForSelector("#unpause-standing:has-text('Both drawdowns are inside their limits')");
  assert.match((await tom.page.textContent("#standing-daily"))!, /: inside$/);
  await tom.page.click("#vault-unpause");
  await expectNotice(tom, "Vault unpaused.");
  await tom.page.waitForSelector("#order-form:not([data-reduce-only])");
  assert.is(await tom.page.locator("#vault-paused").count(), 0);
  assert.equal([tom.problems, ivy.problems], [[], []], "no page errors, no CSP violations");
});

t("under reduce-only: a form that only reduces (reduce-only, the opposite side), and Close", async (ctx) => {
  const { d, p } = ctx;
  const { tom } = p;
  // The investor's account backs one active vault at a time: the first one closes.
  const closed = await d.http.post(`/api/vaults/${p.vault}/close`, {}, { token: p.api.ivy.token });
  assert.is(closed.status, 200, JSON.stringify(closed.body));
  const vault = await createVault(d, p.api.ivy, p.api.tom, { breachPolicy: "reduce-only", initialBalance: "9000" });
  await breachDaily(ctx, vault);

  await go(tom, `#vault/${vault}`, "#order-form[data-reduce-only]");
  const form = tom.page.locator("#order-form");
  assert.equal(await form.locator("[name]").evaluateAll((els) => els.map((e) => (e as HTMLInputElement).name)), ["symbol", "size", "price", "tif"],
    "no side to choose, no reduce-only to untick, no stop loss or take profit (an entry's)");
  assert.equal(await form.locator("[name=symbol] option").allTextContents(), ["BTC: long 0.1"]);
  assert.match((await tom.page.textContent("#vault-paused"))!, /breach policy \(reduce-only\) takes only orders that reduce a position/);
  assert.is(await tom.page.locator('#positions [data-close="BTC"]').count(), 1);

  await tom.page.fill("#order-form [name=size]", "0.05");
  const sent: Promise<Request> = tom.page.waitForRequest((r) => new URL(r.url()).pathname === "/api/trade" && r.method() === "POST");
  await tom.page.click("#place-order");
  assert.equal((await sent).postDataJSON(), { symbol: "BTC", side: "sell", size: "0.05", reduceOnly: true, vaultAddress: vault });
  await expectNotice(tom, "submitted, filled 0.05 @ ");
  await waitUntil(async () => (await detail(ctx, vault)).positions[0]?.size === 0.05, { slowMs: 30_000, what: "the position halved" });
  // The form lists what is left to reduce.
  await tom.page.waitForSelector("#order-form [name=symbol] option:text('BTC: long 0.05')", { state: "attached" });
  assert.equal(tom.problems, []);
});

t.run();
