/// <reference lib="dom" />
// Trading a vault from its own page in a real browser against a real daemon (embedded sim and chain):
// the trader places a limit order and cancels it, a market buy shows the vault's position with its
// figures and Close flattens it; the investor reads the same tables without a form or a button.
import * as assert from "uvu/assert";
import { grouped, usdcText } from "../../daemon/lib/figures.js";
import { expectNotice, go } from "./helpers/pages.js";
import { vaultPageSuite, type VaultPageCtx, type VaultParties } from "./helpers/vault-parties.js";

type Ctx = VaultPageCtx;
const t = vaultPageSuite("vault trading");
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
  await tom.page.waitForSelector("#orders tbody tr");
  const row = await cells(ctx, "tom", "#orders");
  const orderId = Number(row[0]);
  assert.equal(row.slice(1, 6), ["BTC", "buy", "0.01", "55,000", "-"]);
  // It is the vault's order, not one on the trader's own account.
  const vaultOrders = (await d.http.get(`/api/orders?vaultAddress=${p.vault}`, { token: p.api.tom.token })).body.data.orders;
  assert.equal(vaultOrders.map((o: { orderId: number }) => o.orderId), [orderId]);

  await tom.page.click(`[data-order="${orderId}"]`);
  await expectNotice(tom, `Order ${orderId} canceled`);
  await tom.page.waitForSelector("p#orders");
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
  await tom.page.waitForSelector("#positions tbody tr");
  const [api] = (await d.http.get(`/api/positions?vaultAddress=${p.vault}`, { token: p.api.tom.token })).body.data.positions;
  const figures = [api.symbol, grouped(api.size), grouped(api.entryPrice), grouped(api.markPrice), usdcText(String(api.unrealizedPnl)),
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
  await tom.page.waitForSelector("p#positions");
  assert.equal((await d.http.get(`/api/positions?vaultAddress=${p.vault}`, { token: p.api.tom.token })).body.data.positions, []);
  clean(ctx);
});

t("everyone reads the vault's fills in words and grouped figures: the event under its title, the trade in the table", async (ctx) => {
  const { ivy } = ctx.p;
  await go(ivy, "#vaults", "#vaults");
  await go(ivy, `#vault/${ctx.p.vault}`, "#vault-events li[data-type=Fill]");
  // Newest first: the oldest fill is the market buy (the close sold it back since).
  const fill = (await ivy.page.locator("#vault-events li[data-type=Fill]").last().textContent())!;
  assert.match(fill, /^\d{4}-\d\d-\d\d \d\d:\d\d UTC Fill Bought 0\.02 BTC at \d{2},\d{3}(\.\d+)? \(fee \d+\.\d{2,} USDC\)$/, fill);
  const trade = await ivy.page.locator("#vault-trades tbody tr", { hasText: "buy" }).first().locator("td").allTextContents();
  assert.equal(trade.slice(1, 4), ["BTC", "buy", "0.02"]);
  assert.match(trade[4]!, /^\d{2},\d{3}(\.\d+)?$/, "the price grouped by thousands");
  assert.match((await ivy.page.textContent("#vault-balance"))!, /^\d{1,2},\d{3}\.\d{2,} USDC$/, "USDC with its cents");
  clean(ctx);
});

t("the Sim tab shows the symbol's current price beside the price control, again after each set", async (ctx) => {
  const { tom } = ctx.p;
  const d = ctx.d;
  d.daemon.sim!.setPrice("BTC", "60000");
  await go(tom, "#sim", "#price-form");
  const first = (await tom.page.textContent("#sim-mark"))!;
  assert.match(first, /^BTC now: 60,000 \(at .* UTC\)$/, first);
  for (const px of ["60500", "61000"]) {
    await tom.page.fill("#price-form [name=price]", px);
    await tom.page.click("#set-price");
    await expectNotice(tom, `set to ${px}`);
    await tom.page.waitForFunction((t) => document.querySelector("#sim-mark")?.textContent?.startsWith(t), `BTC now: ${px.slice(0, 2)},${px.slice(2)} `);
  }
  // Moved elsewhere (another user, the feed, the API): the tab reads the exchange, not its own memory.
  d.daemon.sim!.setPrice("ETH", "3210");
  await tom.page.fill("#price-form [name=symbol]", "eth");
  await tom.page.waitForFunction(() => document.querySelector("#sim-mark")?.textContent?.startsWith("ETH now: 3,210 "));
  await tom.page.fill("#price-form [name=symbol]", "nope");
  await tom.page.waitForFunction(() => document.querySelector("#sim-mark")?.textContent === "NOPE: no such market on the sim");
  clean(ctx);
});

t("a screen that loads slowly does not replace the one the user went on to (the account screen held, the vault page shown)", async (ctx) => {
  const { tom } = ctx.p;
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  await tom.page.route("**/api/account", async (route) => {
    await held;
    await route.continue();
  });
  await tom.page.evaluate(() => (location.hash = "#account"));
  const answered = tom.page.waitForResponse((r) => new URL(r.url()).pathname === "/api/account");
  await go(tom, `#vault/${ctx.p.vault}`, "#order-card h2:has-text('for the vault')");
  release();
  await answered;
  await tom.page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  assert.is(await tom.page.locator("#account-card").count(), 0, "the account screen, answered last, was dropped");
  assert.is(await tom.page.locator("#vault-status").count(), 1);
  await tom.page.unroute("**/api/account");
  clean(ctx);
});

/** What sticks out sideways: the page itself, and each card (except inside a scroll container in it). */
const overflows = (page: VaultParties["tom"]["page"]) => page.evaluate(() => {
  const out: string[] = [];
  const doc = document.documentElement;
  if (doc.scrollWidth > window.innerWidth) out.push(`page ${doc.scrollWidth - window.innerWidth} px too wide`);
  for (const card of Array.from(document.querySelectorAll<HTMLElement>(".card"))) {
    if (card.scrollWidth > card.clientWidth) out.push(`${card.id || card.querySelector("h2")?.textContent} ${card.scrollWidth - card.clientWidth} px too wide`);
  }
  return out;
});

t("at 1280 px and at phone width (375 px) nothing on the vault page sticks out: tables scroll in their card, the form wraps", async (ctx) => {
  const { p } = ctx;
  const { tom, ivy } = p;
  // The widest content: a resting order and a position (and the events of both).
  await go(tom, `#vault/${p.vault}`, "#order-form");
  for (const [size, price] of [["0.01", "55000"], ["0.01", ""]]) {
    await tom.page.fill("#order-form [name=size]", size);
    await tom.page.fill("#order-form [name=price]", price);
    await tom.page.click("#place-order");
    await expectNotice(tom, "submitted");
  }
  await tom.page.waitForSelector("#orders tbody tr");
  await tom.page.waitForSelector("#positions tbody tr");
  for (const u of [tom, ivy]) {
    for (const width of [1280, 375]) {
      await u.page.setViewportSize({ width, height: 900 });
      await go(u, "#vaults", "#vaults");
      await go(u, `#vault/${p.vault}`, "#positions tbody tr");
      await u.page.waitForSelector("#vault-performance dl");
      assert.equal(await overflows(u.page), [], `${u === tom ? "trader" : "investor"} at ${width} px`);
    }
  }
  clean(ctx);
});

t.run();
