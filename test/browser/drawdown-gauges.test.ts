/// <reference lib="dom" />
// Each drawdown against its limit, in a real browser against a real daemon: a vault whose daily
// drawdown the sim's price took past 80% of its limit shows "4.1% of 5% (reached 80% of the limit)"
// beside a meter on its page and in the vault list (the words say it, not the colour), and its
// LimitNear event in words among its events; as the price comes back, the figures follow.
import * as assert from "uvu/assert";
import type { Page } from "playwright-core";
import { go } from "./helpers/pages.js";
import { vaultPageSuite, type VaultPageCtx } from "./helpers/vault-parties.js";

const t = vaultPageSuite("drawdown gauges");

/** The vault's figures as the API gives them: what the gauges must say. */
async function figures(ctx: VaultPageCtx) {
  const r = await ctx.d.http.get(`/api/vaults/${ctx.p.vault}`, { token: ctx.p.api.ivy.token });
  assert.is(r.status, 200, JSON.stringify(r.body));
  return r.body.data.vault as { currentDrawdown: number; maxDrawdown: number; currentDailyDrawdown: number; dailyDrawdown: number };
}

/** The text of a gauge, and its meter's value, maximum and label. */
const gauge = (page: Page, selector: string) => page.locator(selector).evaluate((el) => {
  const m = el.querySelector("meter")!;
  return { text: el.querySelector(".gauge-text")!.textContent, value: m.value, max: m.max, label: m.getAttribute("aria-label") };
});

t("past 80% of the daily limit: the vault page and the list say each drawdown of its limit, and the warning in words", async (ctx) => {
  const { d, p } = ctx;
  const { ivy } = p;
  const bought = await d.http.post("/api/trade", { symbol: "BTC", side: "buy", size: 0.1, vaultAddress: p.vault }, { token: p.api.tom.token });
  assert.is(bought.status, 200, JSON.stringify(bought.body));
  await d.daemon.oracle.cycle(); // the day's first reading, at 60,000
  d.daemon.sim!.setPrice("BTC", "55900"); // about 4.1% down: 82% of the 5% daily limit, 41% of the 10% maximum
  await d.daemon.oracle.cycle();
  const f = await figures(ctx);
  assert.ok(f.currentDailyDrawdown >= 4 && f.currentDailyDrawdown < 4.5, JSON.stringify(f));

  await go(ivy, `#vault/${p.vault}`, "#vault-daily-drawdown");
  const daily = await gauge(ivy.page, "#vault-daily-drawdown");
  assert.is(daily.text, `${f.currentDailyDrawdown}% of 5% (reached 80% of the limit)`);
  assert.equal([daily.value, daily.max], [f.currentDailyDrawdown, 5]);
  assert.is(daily.label, `daily drawdown: ${daily.text}`);
  const max = await gauge(ivy.page, "#vault-drawdown");
  assert.is(max.text, `${f.currentDrawdown}% of 10%`, "below 80% of its limit: the figures alone");
  const warning = (await ivy.page.locator("#vault-events li[data-type=LimitNear]").textContent())!;
  assert.match(warning, new RegExp(`daily drawdown ${f.currentDailyDrawdown}% is 80% of its limit of 5%; at the limit the vault pauses`));

  await go(ivy, "#vaults", "#vaults");
  const row = ivy.page.locator(`#vaults tr:has(a[href="#vault/${p.vault}"])`);
  const cells = await row.locator("td").allTextContents();
  assert.equal(cells.slice(5, 8), ["ACTIVE", `${f.currentDrawdown}% of 10%`, `${f.currentDailyDrawdown}% of 5% (reached 80% of the limit)`]);

  d.daemon.sim!.setPrice("BTC", "59000"); // back to about 1% down
  await d.daemon.oracle.cycle();
  const back = await figures(ctx);
  await go(ivy, `#vault/${p.vault}`, "#vault-daily-drawdown");
  assert.is((await gauge(ivy.page, "#vault-daily-drawdown")).text, `${back.currentDailyDrawdown}% of 5%`);
  assert.ok(back.currentDailyDrawdown < 1.5, JSON.stringify(back));
  assert.equal(ivy.problems, [], "no page errors, no CSP violations");
});

t.run();
