/// <reference lib="dom" />
// The dashboard in a real browser (Debian's Chromium, headless) against a real daemon on the
// embedded defaults (sim exchange, embedded chain), each user with their own browser context and an
// injected wallet that signs on the Node side. One walk, in order: sign-in, an order placed and
// canceled, a proposal made by the trader and accepted by the investor in another context, the
// vault's chart following a sim price move, and a pause arriving live on a page left open.
import { suite } from "uvu";
import * as assert from "uvu/assert";
import type { Browser } from "playwright-core";
import { startTestDaemon, fakeClock, type TestDaemon } from "../helpers/daemon.js";
import { waitUntil } from "../helpers/util.js";
import { launchChromium } from "./helpers/chromium.js";
import { expectNotice, go, openUser, signIn, type User } from "./helpers/pages.js";
import { BUSY_MACHINE } from "../helpers/busy-machine.js";

interface Ctx { d: TestDaemon; browser: Browser; ivy: User; tom: User; vault: string }
const t = suite<Ctx>("dashboard walk");

t.before(async (ctx) => {
  ctx.d = await startTestDaemon({ clock: fakeClock(Date.now(), { realTime: true }), config: { ...BUSY_MACHINE, oracleInterval: 1 } });
  ctx.browser = await launchChromium();
});
t.after(async (ctx) => {
  await ctx.browser?.close();
  await ctx.d?.close();
});
// Checked at the end of each test (uvu does not report a failing after.each hook).
const clean = (ctx: Ctx) => {
  for (const u of [ctx.ivy, ctx.tom]) if (u) assert.equal(u.problems, [], "no page errors, no CSP violations");
};

t("a first visit, before sign-in, makes no request that fails and logs no error (icon, session)", async (ctx) => {
  const context = await ctx.browser.newContext();
  const page = await context.newPage();
  const failed: string[] = [];
  page.on("response", (r) => void (r.status() >= 400 && failed.push(`${r.status()} ${new URL(r.url()).pathname}`)));
  page.on("requestfailed", (r) => void failed.push(`failed ${new URL(r.url()).pathname}`));
  page.on("console", (m) => void (m.type() === "error" && failed.push(`console: ${m.text()}`)));
  const icon = page.waitForResponse((r) => new URL(r.url()).pathname === "/favicon.svg");
  const session = page.waitForResponse((r) => new URL(r.url()).pathname === "/api/auth/session");
  await page.goto(ctx.d.url);
  assert.is((await session).status(), 200, "who is signed in: nobody, said with a 200");
  assert.is((await icon).headers()["content-type"], "image/svg+xml");
  await page.waitForLoadState("networkidle");
  assert.equal(failed, []);
  assert.is(await page.locator("#connect").textContent(), "Connect wallet");
  await context.close();
});

t("sign-in with the injected wallet: personal_sign of an EIP-4361 message naming this origin", async (ctx) => {
  ctx.ivy = await openUser(ctx.browser, ctx.d.url);
  // Every API call says it is the dashboard's (the daemon words its refusals for it); the live
  // stream is an EventSource, which sends no headers of its own.
  const calls: Array<{ what: string; client: string | undefined }> = [];
  ctx.ivy.page.on("request", (r) => {
    if (r.resourceType() === "fetch" && new URL(r.url()).pathname.startsWith("/api/")) {
      calls.push({ what: `${r.method()} ${new URL(r.url()).pathname}`, client: r.headers()["x-tradevault-client"] });
    }
  });
  await signIn(ctx.ivy);
  await ctx.ivy.page.waitForSelector("#account-card");
  const whats = calls.map((c) => c.what);
  assert.ok(whats.includes("POST /api/auth/login") && whats.includes("GET /api/account"), whats.join(", "));
  assert.equal(calls.filter((c) => c.client !== "dashboard"), [], "every call names the dashboard");
  const sign = ctx.ivy.wallet.calls.find((c) => c.method === "personal_sign")!;
  const message = Buffer.from((sign.params[0] as string).slice(2), "hex").toString("utf8");
  assert.ok(message.startsWith(`${ctx.d.url} wants you to sign in`), message);
  assert.match(message, `URI: ${ctx.d.url}`);
  const account = await ctx.d.http.get("/api/account", { cookie: (await ctx.ivy.context.cookies()).map((c) => `${c.name}=${c.value}`).join("; ") });
  assert.is(account.body.data.address, ctx.ivy.address, "the browser holds a working session cookie");
  clean(ctx);
});

t("test funds, agent approval on the wallet's own chain, a limit order placed and canceled, a position closed", async (ctx) => {
  const { ivy, d } = ctx;
  await go(ivy, "#sim", "#faucet-form");
  await ivy.page.fill("#faucet-form [name=amount]", "10000");
  await ivy.page.click("#faucet");
  await expectNotice(ivy, "Credited");
  await go(ivy, "#account", "#account-card");
  await ivy.page.waitForFunction(() => document.querySelector("#equity")?.textContent?.startsWith("10,000"));
  await ivy.page.click("#approve-agent");
  await ivy.page.waitForFunction(() => document.querySelector("#agent-status")?.textContent?.startsWith("Approved"));
  // approveAgent was signed for chain 1, the wallet's active chain, not one the wallet would refuse
  const approve = ivy.wallet.calls.find((c) => c.method === "eth_signTypedData_v4")!;
  assert.is(approve.error, undefined);
  assert.is(JSON.parse(approve.params[1] as string).domain.chainId, 1);

  await ivy.page.fill("#order-form [name=size]", "0.01");
  await ivy.page.fill("#order-form [name=price]", "50000");
  await ivy.page.click("#place-order");
  const row = ivy.page.locator("#orders tbody tr");
  await row.first().waitFor();
  const orderId = Number(await row.first().locator("td").first().textContent());
  assert.ok(orderId > 0);
  await ivy.page.click(`[data-order="${orderId}"]`);
  await expectNotice(ivy, "canceled");
  await ivy.page.waitForSelector("p#orders");
  const cookie = (await ivy.context.cookies()).map((c) => `${c.name}=${c.value}`).join("; ");
  const order = await d.http.get(`/api/orders/${orderId}`, { cookie });
  assert.is(order.body.data.order.status, "canceled");

  // A market order opens a position; its Close button flattens it with a reduce-only order.
  await ivy.page.fill("#order-form [name=symbol]", "ETH");
  await ivy.page.fill("#order-form [name=size]", "1");
  await ivy.page.fill("#order-form [name=price]", "");
  await ivy.page.click("#place-order");
  // The API's answer says what filled: the page says it as the CLI does.
  await expectNotice(ivy, "submitted, filled 1 @ ");
  assert.match((await ivy.page.textContent("#notice"))!, /^Order \d+ submitted, filled 1 @ \d{1,3}(,\d{3})*(\.\d+)?\.$/);
  await ivy.page.locator('[data-close="ETH"]').click();
  await expectNotice(ivy, "Closing ETH");
  assert.match((await ivy.page.textContent("#notice"))!, /^Closing ETH: order \d+, filled 1 @ [\d,.]+\.$/);
  await ivy.page.waitForSelector("p#positions");
  assert.equal((await d.http.get("/api/positions", { cookie })).body.data.positions, []);
  clean(ctx);
});

t("a proposal made by the trader in one context and accepted by the investor in another deploys the vault", async (ctx) => {
  const { ivy } = ctx;
  const tom = (ctx.tom = await openUser(ctx.browser, ctx.d.url));
  await signIn(tom);
  await go(tom, "#proposals", "#proposal-form");
  await tom.page.selectOption("#proposal-form [name=role]", "trader");
  await tom.page.fill("#proposal-form [name=counterparty]", ivy.address);
  await tom.page.click("#create-proposal");
  const accept = tom.page.locator("[data-accept]");
  await accept.waitFor();
  await accept.click();
  await tom.page.waitForSelector("#proposals :text('waiting for the other party')");
  // The terms are signed on the vault chain: unknown to the wallet (4902), added, then signed there.
  const methods = tom.wallet.calls.filter((c) => c.method !== "eth_chainId").map((c) => `${c.method}${c.error ? `:${c.error.code}` : ""}`);
  assert.equal(methods.slice(-3), ["wallet_switchEthereumChain:4902", "wallet_addEthereumChain", "eth_signTypedData_v4"]);
  assert.is(tom.wallet.chainId, ctx.d.daemon.chain.chainId);

  await go(ivy, "#proposals", "#proposals");
  await ivy.page.locator("[data-accept]").click();
  const link = ivy.page.locator("#proposals a.vault-link");
  await link.waitFor();
  ctx.vault = (await link.getAttribute("href"))!.replace("#vault/", "");
  assert.match(ctx.vault, /^0x[0-9a-fA-F]{40}$/);
  clean(ctx);
});

t("the trader trades the vault; a sim price move adds a reading to the chart; a breach pauses it live", async (ctx) => {
  const { ivy, tom, vault } = ctx;
  // The investor watches the vault's page from here on, without reloading it.
  await go(ivy, `#vault/${vault}`, "#vault-chart");
  await ivy.page.evaluate(() => ((window as unknown as { stayed: boolean }).stayed = true));
  await ivy.page.waitForFunction(() => Number(document.querySelector("#chart-caption")?.parentElement?.dataset.points ?? 0) >= 1);

  const control = await tom.context.newPage();
  await control.goto(`${ctx.d.url}/#sim`);
  await control.waitForSelector("#price-form");
  const setPrice = async (px: string) => {
    await control.fill("#price-form [name=price]", px);
    await control.click("#set-price");
    await expectNotice({ page: control }, `set to ${px}`);
  };
  await setPrice("60000");
  // The trader trades the vault from its own page (its order form sends the vault's address).
  await go(tom, `#vault/${vault}`, "#order-form");
  await tom.page.fill("#order-form [name=size]", "0.1");
  await tom.page.click("#place-order");
  await expectNotice(tom, "submitted");

  const points = () => ivy.page.evaluate(() => Number((document.querySelector("#chart-caption")?.parentElement as HTMLElement).dataset.points));
  const before = await points();
  await setPrice("58500");
  await waitUntil(async () => (await points()) > before, { slowMs: 30_000, what: "a new balance reading on the chart" });
  assert.match((await ivy.page.textContent("#chart-caption"))!, /USDC/);
  assert.is(await ivy.page.textContent("#vault-state"), "ACTIVE");

  await setPrice("53000");
  await ivy.page.waitForFunction(() => document.querySelector("#vault-state")?.textContent?.startsWith("PAUSED"));
  await ivy.page.waitForSelector("#vault-events li.live[data-type=Paused]");
  // Events read as sentences (the describer the CLI uses): the pause says which limit, against it.
  const pause = (await ivy.page.textContent("#vault-events li.live[data-type=Paused]"))!;
  assert.match(pause, new RegExp(`Vault ${vault.slice(0, 6)}…${vault.slice(-4)} paused: (both limits, )?(daily )?drawdown [\\d.]+% \\((max|limit) [\\d.]+%\\)`), pause);
  assert.match((await ivy.page.textContent("#vault-events li[data-type=BalanceUpdated]"))!, /Balance [\d,]+\.\d{2,} USDC, drawdown [\d.]+% \(max \d+(\.\d+)?%\)/);
  assert.ok(await ivy.page.evaluate(() => (window as unknown as { stayed?: boolean }).stayed), "the page was not reloaded");
  await control.close();
  clean(ctx);
});

t("each role's actions: unpause refused with the daemon's message, a permit funds the escrow, close, withdraw", async (ctx) => {
  const { ivy, tom, vault } = ctx;
  await go(tom, `#vault/${vault}`, "#vault-unpause");
  await tom.page.click("#vault-unpause");
  await tom.page.waitForSelector("#error:has-text('NOT_RECOVERED')");
  assert.is(await ivy.page.locator("#vault-unpause").count(), 0, "only the trader is offered unpause");
  assert.is(await tom.page.locator("#vault-fund").count(), 0, "only the investor funds");

  // The permit is typed data on the vault chain, while the investor's wallet is still on it from the terms.
  await ivy.page.fill("[name=fundAmount]", "100");
  // A live update re-renders the vault's status while the amount sits typed in: it must survive.
  await ivy.page.evaluate(() => document.querySelector("#vault-status h2")!.setAttribute("data-old", ""));
  assert.is((await ctx.d.http.post("/api/sim/price", { symbol: "BTC", price: "53500" }, { cookie: await cookieOf(tom) })).status, 200);
  await ivy.page.waitForFunction(() => !document.querySelector("#vault-status h2[data-old]"));
  await ivy.page.click("#vault-fund");
  await expectNotice(ivy, "Funded the escrow with 100.00 USDC");
  const permit = ivy.wallet.calls.filter((c) => c.method === "eth_signTypedData_v4").at(-1)!;
  assert.is(JSON.parse(permit.params[1] as string).primaryType, "Permit");

  ivy.page.once("dialog", (dialog) => void dialog.accept());
  await ivy.page.click("#vault-close");
  await expectNotice(ivy, "Vault closed");
  // A loss: the trader's share is 0, so only the investor is owed (the escrow's 100).
  assert.is(await ivy.page.textContent("#vault-withdraw"), "Withdraw 100.00 USDC");
  await go(tom, "#vaults", "#vaults");
  await go(tom, `#vault/${vault}`, "#vault-state:text('CLOSED')"); // the actions are drawn with the state
  assert.is(await tom.page.locator("#vault-withdraw").count(), 0, "nothing to withdraw: not offered");
  await ivy.page.click("#vault-withdraw");
  await expectNotice(ivy, `to ${ivy.address}`);
  assert.is((await ctx.d.http.get(`/api/vaults/${vault}`, { cookie: await cookieOf(ivy) })).body.data.vault.settlement.paidInvestor, "100");
  await ivy.page.waitForSelector("#vault-withdraw", { state: "detached" });

  // The list: a vault closed while paused is CLOSED.
  await go(ivy, "#vaults", "#vaults");
  const row = ivy.page.locator(`#vaults tr:has(a[href="#vault/${vault}"])`);
  assert.is(await row.locator("td").nth(5).textContent(), "CLOSED");
  clean(ctx);
});

const cookieOf = async (u: User) => (await u.context.cookies()).map((c) => `${c.name}=${c.value}`).join("; ");

t.run();
