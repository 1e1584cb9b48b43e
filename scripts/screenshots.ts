/// <reference lib="dom" />
// npm run screenshots: plays a short session on a fresh daemon (embedded defaults, its own temporary
// data) in headless Chromium with the test wallet, and writes each screen of the dashboard to
// docs/screenshots/*.png. Run `npm run build` first (the daemon serves dist/web).
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { fakeClock, startTestDaemon } from "../test/helpers/daemon.js";
import { waitUntil } from "../test/helpers/util.js";
import { launchChromium } from "../test/browser/helpers/chromium.js";
import { go, openUser, signIn } from "../test/browser/helpers/pages.js";

const out = join(import.meta.dirname, "..", "docs", "screenshots");
mkdirSync(out, { recursive: true });

async function shot(page: Page, name: string): Promise<void> {
  await page.evaluate(() => document.fonts.ready);
  await page.screenshot({ path: join(out, `${name}.png`), fullPage: true });
  console.log(`docs/screenshots/${name}.png`);
}

const frames = (page: Page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

async function submit(page: Page, form: string, values: Record<string, string>, button: string, done: string): Promise<void> {
  for (const [name, value] of Object.entries(values)) {
    const el = page.locator(`${form} [name=${name}]`);
    if ((await el.evaluate((e) => e.tagName)) === "SELECT") await el.selectOption(value);
    else await el.fill(value);
  }
  await page.click(button);
  await page.waitForSelector(`#notice:has-text('${done}')`, { timeout: 30_000 });
}

const d = await startTestDaemon({ clock: fakeClock(Date.now(), { realTime: true }), config: { oracleInterval: 1, webhooksAllowPrivate: true } });
const browser = await launchChromium();
try {
  const ivy = await openUser(browser, d.url);
  await shot(ivy.page, "signed-out");
  await signIn(ivy);
  await go(ivy, "#sim", "#faucet-form");
  await submit(ivy.page, "#faucet-form", { amount: "10000" }, "#faucet", "Credited");
  await submit(ivy.page, "#price-form", { symbol: "BTC", price: "60000" }, "#set-price", "set to");
  await shot(ivy.page, "sim");
  await go(ivy, "#account", "#approve-agent");
  await ivy.page.click("#approve-agent");
  await ivy.page.waitForSelector("#agent-status:has-text('Approved')");

  const tom = await openUser(browser, d.url);
  await signIn(tom);
  await go(tom, "#proposals", "#proposal-form");
  await submit(tom.page, "#proposal-form", { role: "trader", counterparty: ivy.address }, "#create-proposal", "created");
  await tom.page.click("[data-accept]");
  await tom.page.waitForSelector("#notice:has-text('Signed proposal')");
  await go(ivy, "#proposals", "[data-accept]");
  await shot(ivy.page, "proposals");
  await ivy.page.click("[data-accept]");
  const link = ivy.page.locator("#proposals a.vault-link");
  await link.waitFor({ timeout: 30_000 });
  const vault = (await link.getAttribute("href"))!.replace("#vault/", "");

  // The trader trades the vault from its page: a long with its stop, and a resting entry with a stop and a target.
  await go(tom, `#vault/${vault}`, "#order-form");
  await submit(tom.page, "#order-form", { size: "0.1", stopLoss: "57000" }, "#place-order", "submitted");
  await submit(tom.page, "#order-form", { size: "0.05", price: "58000", stopLoss: "55000", takeProfit: "64000" }, "#place-order", "submitted");
  // A third user trades their own account (the investor's account backs the vault).
  const alex = await openUser(browser, d.url);
  await signIn(alex);
  await go(alex, "#sim", "#faucet-form");
  await submit(alex.page, "#faucet-form", { amount: "25000" }, "#faucet", "Credited");
  await go(alex, "#account", "#approve-agent");
  await alex.page.click("#approve-agent");
  await alex.page.waitForSelector("#agent-status:has-text('Approved')");
  await submit(alex.page, "#order-form", { symbol: "ETH", size: "2" }, "#place-order", "submitted");
  await submit(alex.page, "#order-form", { symbol: "BTC", size: "0.05", price: "55000" }, "#place-order", "submitted");
  await alex.page.waitForSelector("#orders tbody tr");
  await alex.page.waitForSelector("#positions tbody tr");
  await shot(alex.page, "account");

  await go(ivy, `#vault/${vault}`, "#vault-chart");
  const sim = await tom.context.newPage();
  await sim.goto(`${d.url}/#sim`);
  await sim.waitForSelector("#price-form");
  const points = () => ivy.page.evaluate(() => Number((document.querySelector("#chart-caption")?.parentElement as HTMLElement).dataset.points));
  for (const px of ["60400", "59700", "60900", "60300", "61200"]) {
    const before = await points();
    await submit(sim, "#price-form", { price: px }, "#set-price", `set to ${px}`);
    await waitUntil(async () => (await points()) > before, { slowMs: 30_000, what: "a chart point" });
  }
  // the detail is read again just after the last reading; then the chart draws on the next frame
  await ivy.page.waitForFunction(() => document.querySelector("#vault-balance")?.textContent?.startsWith("10,1"), undefined, { timeout: 30_000 });
  await frames(ivy.page);
  await shot(ivy.page, "vault");
  // The trader's view of the same vault: positions, open orders (the stop, the entry waiting with its
  // stop and target) and the order form.
  await go(tom, "#vaults", "#vaults");
  await go(tom, `#vault/${vault}`, "#positions tbody tr");
  await tom.page.waitForSelector("#orders tbody tr");
  await tom.page.waitForSelector("#vault-performance dl");
  await frames(tom.page);
  await shot(tom.page, "vault-trading");

  // Alerts: a Slack webhook for every event but the readings, and the vault's deliveries so far.
  await go(ivy, "#alerts", "#webhook-form");
  await submit(ivy.page, "#webhook-form", { url: "http://127.0.0.1:9/services/T000/B000/XXXX", format: "slack", events: "Paused,Flattened,Closed,DeadlineApproaching" }, "#add-webhook", "signing secret");
  await ivy.page.waitForSelector("#webhooks table");
  await shot(ivy.page, "alerts");

  const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, storageState: await ivy.context.storageState() });
  await ivy.wallet.install(phone);
  const small = await phone.newPage();
  await small.goto(`${d.url}/#vault/${vault}`);
  await small.waitForSelector("#vault-chart");
  await frames(small);
  await shot(small, "vault-phone");
} finally {
  await browser.close();
  await d.close();
}
