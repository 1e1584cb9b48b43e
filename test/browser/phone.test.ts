/// <reference lib="dom" />
// At phone width (390 px) every screen fits without sideways scrolling, and an API error reaches the
// user with the daemon's own message and code.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { Wallet } from "ethers";
import type { Browser } from "playwright-core";
import { startTestDaemon, type TestDaemon } from "../helpers/daemon.js";
import { launchChromium } from "./helpers/chromium.js";
import { go, openUser, signIn, type User } from "./helpers/pages.js";

let d: TestDaemon;
let browser: Browser;
let u: User;

test.before(async () => {
  d = await startTestDaemon({ startOracle: false });
  browser = await launchChromium();
  u = await openUser(browser, d.url, { viewport: { width: 390, height: 844 } });
  await signIn(u);
});
test.after(async () => {
  await browser?.close();
  await d?.close();
});

const overflow = () => u.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);

test("every screen fits 390 px without sideways scrolling", async () => {
  // A proposal gives the proposals screen its widest table (eleven columns).
  const cookie = (await u.context.cookies()).map((c) => `${c.name}=${c.value}`).join("; ");
  const created = await d.http.post("/api/proposals", {
    investor: Wallet.createRandom().address, trader: u.address, initialBalance: "10000", maxDrawdown: 10, dailyDrawdown: 5,
    dealDeadline: Math.floor(Date.now() / 1000) + 30 * 86_400, profitShare: { trader: 20, investor: 80 },
  }, { cookie });
  assert.is(created.status, 200, JSON.stringify(created.body));
  for (const [hash, ready] of [["#account", "#order-form"], ["#proposals", "#proposals tbody tr"], ["#vaults", "#vaults"], ["#sim", "#price-form"]] as const) {
    await go(u, hash, ready);
    assert.ok((await overflow()) <= 0, `${hash} is ${await overflow()} px too wide`);
  }
  assert.equal(u.problems, []);
});

test("an order the daemon refuses shows the daemon's message and code", async () => {
  await go(u, "#account", "#order-form");
  await u.page.fill("#order-form [name=size]", "0.01");
  await u.page.click("#place-order");
  await u.page.waitForSelector("#error:not([hidden])");
  // The same request straight to the API: the page must show exactly what it says.
  const cookie = (await u.context.cookies()).map((c) => `${c.name}=${c.value}`).join("; ");
  const direct = await d.http.post("/api/trade", { symbol: "BTC", side: "buy", size: "0.01" }, { cookie });
  assert.is(direct.status, 409);
  assert.is(await u.page.textContent("#error"), `${direct.body.error.message} (${direct.body.error.code})`);
  assert.ok(await u.page.locator("#error").isVisible());
  assert.ok((await overflow()) <= 0, "the error fits too");
});

test.run();
