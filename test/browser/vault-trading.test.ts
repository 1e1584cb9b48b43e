/// <reference lib="dom" />
// Trading a vault from its own page in a real browser against a real daemon (embedded sim and chain):
// the trader places a limit order and cancels it, a market buy shows the vault's position with its
// figures and Close flattens it; the investor reads the same tables without a form or a button.
import { suite } from "uvu";
import * as assert from "uvu/assert";
import type { Browser } from "playwright-core";
import { grouped } from "../../daemon/lib/figures.js";
import { fakeClock, startTestDaemon, type TestDaemon } from "../helpers/daemon.js";
import { launchChromium } from "./helpers/chromium.js";
import { expectNotice, go } from "./helpers/pages.js";
import { vaultParties, type VaultParties } from "./helpers/vault-parties.js";

interface Ctx { d: TestDaemon; browser: Browser; p: VaultParties }
const t = suite<Ctx>("vault trading");
const PW = { timeout: 30_000 };

t.before(async (ctx) => {
  ctx.d = await startTestDaemon({ startOracle: false, clock: fakeClock(Date.now(), { realTime: true }) });
  ctx.browser = await launchChromium();
  ctx.d.daemon.sim!.setPrice("BTC", "60000");
  ctx.p = await vaultParties(ctx.d, ctx.browser);
});
t.after(async (ctx) => {
  await ctx.browser?.close();
  await ctx.d?.close();
});
const clean = (ctx: Ctx) => {
  for (const u of [ctx.p.ivy, ctx.p.tom]) assert.equal(u.problems, [], "no page errors, no CSP violations");
};
const cells = (ctx: Ctx, who: "ivy" | "tom", table: string) =>
  ctx.p[who].page.locator(`${table} tbody tr`).first().locator("td").allTextContents();

t("the trader places a limit order from the vault page, sees it among the vault's open orders and cancels it", async (ctx) => {
  const { d, p } = ctx;
  const { tom } = p;
  await go(tom, `#vault/${p.vault}`, "#order-form");
  await tom.page.fill("#order-form [name=size]", "0.01");
  await tom.page.fill("#order-form [name=price]", "55000");
  await tom.page.click("#place-order");
  await expectNotice(tom, "submitted");
  await tom.page.waitForSelector("#orders tbody tr", PW);
  const row = await cells(ctx, "tom", "#orders");
  const orderId = Number(row[0]);
  assert.equal(row.slice(1, 6), ["BTC", "buy", "0.01", "55,000", "-"]);
  // It is the vault's order, not one on the trader's own account.
  const vaultOrders = (await d.http.get(`/api/orders?vaultAddress=${p.vault}`, { token: p.api.tom.token })).body.data.orders;
  assert.equal(vaultOrders.map((o: { orderId: number }) => o.orderId), [orderId]);

  await tom.page.click(`[data-order="${orderId}"]`);
  await expectNotice(tom, `Order ${orderId} canceled`);
  await tom.page.waitForSelector("p#orders", PW);
  const order = await d.http.get(`/api/orders/${orderId}?vaultAddress=${p.vault}`, { token: p.api.tom.token });
  assert.is(order.body.data.order.status, "canceled");
  clean(ctx);
});

t("a market buy shows the vault's position with size, entry, mark, uPnL and liquidation price; the investor sees it read-only", async (ctx) => {
  const { d, p } = ctx;
  const { tom, ivy } = p;
  await tom.page.fill("#order-form [name=size]", "0.02");
  await tom.page.fill("#order-form [name=price]", "");
  await tom.page.click("#place-order");
  await expectNotice(tom, "filled 0.02 @ ");
  await tom.page.waitForSelector("#positions tbody tr", PW);
  const [api] = (await d.http.get(`/api/positions?vaultAddress=${p.vault}`, { token: p.api.tom.token })).body.data.positions;
  const figures = [api.symbol, grouped(api.size), grouped(api.entryPrice), grouped(api.markPrice), grouped(api.unrealizedPnl),
    api.liquidationPrice === null ? "-" : grouped(api.liquidationPrice)];
  assert.is(api.size, 0.02);
  assert.equal((await cells(ctx, "tom", "#positions")).slice(0, 6), figures);
  assert.is(await tom.page.locator('[data-close="BTC"]').count(), 1, "the trader may close it");

  await go(ivy, `#vault/${p.vault}`, "#positions tbody tr");
  assert.equal(await cells(ctx, "ivy", "#positions"), figures, "the same figures, and no Close column");
  assert.is(await ivy.page.locator("#order-form").count(), 0, "the investor gets no order form");
  assert.is(await ivy.page.locator("[data-close], [data-order]").count(), 0, "nor Close or Cancel");
  assert.match((await ivy.page.textContent("#positions-card h2"))!, /Positions/);

  await tom.page.click('[data-close="BTC"]');
  await expectNotice(tom, "Closing BTC: order");
  await tom.page.waitForSelector("p#positions", PW);
  assert.equal((await d.http.get(`/api/positions?vaultAddress=${p.vault}`, { token: p.api.tom.token })).body.data.positions, []);
  clean(ctx);
});

t.run();
