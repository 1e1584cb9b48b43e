/// <reference lib="dom" />
// At phone width (375 px) every screen fits without sideways scrolling, the webhooks table reads as
// words rather than a letter a line, and an API error reaches the user with the daemon's own message
// and code.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { Wallet } from "ethers";
import type { Browser, Page } from "playwright-core";
import { startTestDaemon, type TestDaemon } from "../helpers/daemon.js";
import { launchChromium } from "./helpers/chromium.js";
import { go, openUser, signIn, type User } from "./helpers/pages.js";
import { BUSY_MACHINE } from "../helpers/busy-machine.js";

let d: TestDaemon;
let browser: Browser;
let u: User;

test.before(async () => {
  // Private addresses allowed: the webhook below points at loopback (nothing is sent to it).
  d = await startTestDaemon({ startOracle: false, config: { ...BUSY_MACHINE, webhooksAllowPrivate: true } });
  browser = await launchChromium();
  u = await openUser(browser, d.url, { viewport: { width: 375, height: 812 } });
  await signIn(u);
});
test.after(async () => {
  await browser?.close();
  await d?.close();
});

const overflow = () => u.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);

test("every screen fits 375 px without sideways scrolling", async () => {
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

/**
 * How the cells' text breaks into lines: for each cell, the characters on each of its lines (by the
 * top of each character's box), and the words of 20 characters or fewer that are split across lines.
 */
const cellLines = (page: Page, selector: string) => page.locator(selector).evaluateAll((cells) => cells.map((cell) => {
  const tops = new Map<number, number>();
  const split: string[] = [];
  const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.textContent ?? "";
    const range = document.createRange();
    for (let i = 0; i < text.length; i++) {
      if (/\s/.test(text[i]!)) continue;
      range.setStart(node, i);
      range.setEnd(node, i + 1);
      const top = Math.round(range.getBoundingClientRect().top);
      tops.set(top, (tops.get(top) ?? 0) + 1);
    }
    for (const m of text.matchAll(/\S+/g)) {
      if (m[0].length > 20) continue; // an address longer than a line has to wrap
      range.setStart(node, m.index);
      range.setEnd(node, m.index + m[0].length);
      if (new Set(Array.from(range.getClientRects(), (r) => Math.round(r.top))).size > 1) split.push(m[0]);
    }
  }
  const lines = [...tops.entries()].sort((a, b) => a[0] - b[0]).map(([, n]) => n);
  return { text: cell.textContent ?? "", lines, split };
}));

test("the webhooks table reads at 375 px: no word split, no cell a few letters wide", async () => {
  const cookie = (await u.context.cookies()).map((c) => `${c.name}=${c.value}`).join("; ");
  const created = await d.http.post("/api/webhooks", {
    // As long as a Slack webhook's address, and a filter naming several events.
    url: "http://127.0.0.1:9/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX", format: "json",
    events: ["Paused", "Closed", "Flattened", "EnforcementFailing", "LimitNear"],
  }, { cookie });
  assert.is(created.status, 200, JSON.stringify(created.body));
  await go(u, "#alerts", "#webhooks table");
  assert.ok((await overflow()) <= 0, `#alerts is ${await overflow()} px too wide`);
  const cells = await cellLines(u.page, "#webhooks td");
  assert.ok(cells.some((c) => c.text.includes("EnforcementFailing")), JSON.stringify(cells));
  for (const c of cells) {
    assert.equal(c.split, [], `"${c.text}": words split across lines`);
    // Every line but a cell's last holds at least 8 characters: a long address wraps, it is not stacked.
    assert.ok(c.lines.slice(0, -1).every((n) => n >= 8), `"${c.text}" breaks into lines of ${c.lines.join(", ")} characters`);
  }
  assert.equal(u.problems, []);
});

test("an order the daemon refuses shows the daemon's message and code", async () => {
  await go(u, "#account", "#order-form");
  await u.page.fill("#order-form [name=size]", "0.01");
  await u.page.click("#place-order");
  await u.page.waitForSelector("#error:not([hidden])");
  // The same request straight to the API, as the dashboard sends it: the page must show exactly what it says.
  const cookie = (await u.context.cookies()).map((c) => `${c.name}=${c.value}`).join("; ");
  const direct = await d.http.post("/api/trade", { symbol: "BTC", side: "buy", size: "0.01" }, { cookie, headers: { "X-Tradevault-Client": "dashboard" } });
  assert.is(direct.status, 409);
  assert.is(await u.page.textContent("#error"), `${direct.body.error.message} (${direct.body.error.code})`);
  assert.ok(await u.page.locator("#error").isVisible());
  assert.ok((await overflow()) <= 0, "the error fits too");
});

test.run();
