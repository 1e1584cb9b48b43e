/// <reference lib="dom" />
// The vault page's Money checks card against a real daemon: "not verified yet" at first; Verify now
// disables itself while the daemon reads the chain and the exchange, then shows the outcome and the
// five checks as the API has them, kept for a reload and for the other party; an error answer is a
// message in the card; a broken check shows its first break's figures, and fits a phone.
import * as assert from "uvu/assert";
import { sql } from "kysely";
import type { Page } from "playwright-core";
import { faucet } from "../helpers/daemon.js";
import { utcTime } from "../../daemon/lib/figures.js";
import { go, watch, type User } from "./helpers/pages.js";
import { vaultPageSuite, type VaultPageCtx } from "./helpers/vault-parties.js";

const t = vaultPageSuite("money checks");
const VERIFY = "**/api/vaults/*/verify";

/** The words the card names each check by, in the API's order. */
const NAMES: Record<string, string> = {
  "readings-netted": "Each reading net of transfers",
  "flat-points": "Flat points match fills and funding",
  breaches: "Pauses follow the contract's rules",
  settlement: "Settlement and payouts",
  orders: "Order records follow the exchange",
};
const STATUS: Record<string, string> = { holds: "holds", broken: "broken", "not-checked": "not checked" };

interface Check { invariant: string; status: string; summary: string; break?: { what: string; expected: string; actual: string } }

async function lastVerification(ctx: VaultPageCtx) {
  const r = await ctx.d.http.get(`/api/vaults/${ctx.p.vault}/verification`, { token: ctx.p.api.tom.token });
  assert.is(r.status, 200, JSON.stringify(r.body));
  return r.body.data.verification as { outcome: string; checkedAt: number; invariants: Check[] };
}

/** The card's checks as a user reads them: name, status, summary. */
const shownChecks = (page: Page) => page.locator("#checks-list li").evaluateAll((items) => items.map((li) => ({
  invariant: li.getAttribute("data-invariant"),
  row: [li.querySelector("strong")?.textContent, li.querySelector(".badge")?.textContent, li.querySelector(":scope > .muted")?.textContent],
})));

const ran = (checks: Check[]) => checks.filter((i) => i.status !== "not-checked").length;
const expectedChecks = (checks: Check[]) => checks.map((i) => ({ invariant: i.invariant, row: [NAMES[i.invariant], STATUS[i.status], i.summary] }));

/**
 * Clicks Verify now with the daemon's answer held back: the button is disabled and says it is running
 * until the answer arrives; returns once the card has drawn it.
 */
async function verifyNow(u: User): Promise<void> {
  let release!: () => void;
  let reached!: () => void;
  const held = new Promise<void>((r) => (release = r));
  const sent = new Promise<void>((r) => (reached = r));
  await u.page.route(VERIFY, async (route) => {
    reached();
    await held;
    await route.continue();
  });
  try {
    await u.page.click("#verify-now");
    await sent;
    assert.ok(await u.page.locator("#verify-now").isDisabled(), "disabled while it runs");
    assert.ok(await u.page.locator("#checks-running").isVisible(), "says it is running");
  } finally {
    release(); // a failed check above must not leave the request held for the next test
  }
  await u.page.waitForSelector("#vault-checks:not([data-running]) #verify-now:enabled");
  await u.page.unroute(VERIFY);
}

t("not verified yet; Verify now runs, then shows holds and the five checks; a reload and the other party see the last one", async (ctx) => {
  const { ivy, tom, vault } = ctx.p;
  await ctx.d.daemon.oracle.cycle(); // a reading for the checks to go through
  await go(ivy, `#vault/${vault}`, "#vault-checks[data-outcome=none]");
  assert.match((await ivy.page.textContent("#checks-outcome"))!, /^Not verified yet/);
  assert.is(await ivy.page.locator("#checks-list").count(), 0);
  assert.match((await ivy.page.textContent("#vault-checks .command"))!, new RegExp(`^npx tradevault verify ${vault} --rpc-url <chain RPC> --exchange <exchange API>$`));

  await verifyNow(ivy);
  const v = await lastVerification(ctx);
  assert.is(v.outcome, "holds", JSON.stringify(v, null, 1));
  assert.is(await ivy.page.getAttribute("#vault-checks", "data-outcome"), "holds");
  assert.match((await ivy.page.textContent("#checks-outcome"))!, new RegExp(`^holds Last checked ${utcTime(v.checkedAt)} through this daemon with its records: ${ran(v.invariants)} of 5 checks ran\\.$`));
  assert.equal(v.invariants.map((i) => i.invariant), Object.keys(NAMES), "the five checks");
  assert.equal(await shownChecks(ivy.page), expectedChecks(v.invariants));
  assert.is(await ivy.page.locator("#checks-list .break").count(), 0, "no break shown when none is broken");

  await ivy.page.reload();
  await ivy.page.waitForSelector(`#view[data-route="#vault/${vault}"] #vault-checks[data-outcome=holds]`);
  assert.equal(await shownChecks(ivy.page), expectedChecks(v.invariants));
  await go(tom, `#vault/${vault}`, "#vault-checks[data-outcome=holds]");
  assert.is(await tom.page.textContent("#checks-outcome"), await ivy.page.textContent("#checks-outcome"));
  assert.equal(ivy.problems, []);
  assert.equal(tom.problems, []);
});

t("an error answer is shown in the card as the daemon's message and code; the last result stays", async (ctx) => {
  const { ivy, vault } = ctx.p;
  const cookies = await ivy.context.cookies();
  await ivy.context.clearCookies();
  try {
    await ivy.page.click("#verify-now");
    await ivy.page.waitForSelector("#vault-checks:not([data-running]) #checks-error:not([hidden])");
  } finally {
    await ivy.context.addCookies(cookies);
  }
  const direct = await ctx.d.http.get(`/api/vaults/${vault}/verify`, { headers: { "X-Tradevault-Client": "dashboard" } });
  assert.is(direct.status, 401);
  assert.is(await ivy.page.textContent("#checks-error"), `${direct.body.error.message} (${direct.body.error.code})`);
  assert.is(await ivy.page.getAttribute("#vault-checks", "data-outcome"), "holds");
  assert.ok(await ivy.page.locator("#verify-now").isEnabled());
  assert.equal(ivy.problems, []);
});

t("a broken check shows its first break, expected against actual; the card fits a phone", async (ctx) => {
  const { ivy, vault } = ctx.p;
  await faucet(ctx.d, ivy.address, 100);
  await ctx.d.daemon.oracle.cycle();
  // The daemon's record of what the reading netted no longer matches the exchange's ledger.
  await sql`update vault_readings set external = '0'`.execute(ctx.d.daemon.store.db);
  await verifyNow(ivy);
  assert.ok(await ivy.page.locator("#checks-error").isHidden(), "a new run clears the last error");
  const v = await lastVerification(ctx);
  assert.is(v.outcome, "broken");
  assert.is(await ivy.page.getAttribute("#vault-checks", "data-outcome"), "broken");
  assert.match((await ivy.page.textContent("#checks-outcome"))!, new RegExp(`^broken Last checked .*: ${ran(v.invariants)} of 5 checks ran, 1 broken\\.$`));
  assert.equal(await shownChecks(ivy.page), expectedChecks(v.invariants));
  const broken = v.invariants.find((i) => i.status === "broken")!;
  assert.is(broken.invariant, "readings-netted");
  const item = ivy.page.locator(`#checks-list li[data-invariant=${broken.invariant}] .break`);
  assert.equal(await item.locator("dd").allTextContents(), [broken.break!.what, "100", "0"]);
  assert.equal(await item.locator("dt").allTextContents(), ["First break", "Expected", "Actual"]);

  // Ivy's session on a phone: the page resumes it from the cookie.
  const phone = await ctx.browser.newContext({ viewport: { width: 390, height: 844 }, storageState: await ivy.context.storageState() });
  try {
    await ivy.wallet.install(phone);
    const page = await phone.newPage();
    const problems: string[] = [];
    watch(page, problems);
    await page.goto(`${ctx.d.url}/#vault/${vault}`);
    await page.waitForSelector("#vault-checks[data-outcome=broken] .break");
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `the vault page with its checks is ${overflow} px too wide`);
    const inCard = await page.locator("#vault-checks").evaluate((card) => card.scrollWidth - card.clientWidth);
    assert.ok(inCard <= 0, `the checks stick out of their card by ${inCard} px`);
    assert.equal(problems, []);
  } finally {
    await phone.close();
  }
});

t.run();
