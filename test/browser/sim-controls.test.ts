/// <reference lib="dom" />
// The dashboard offers the sim price control only where the daemon lets any signed-in user use it
// (/healthz sim.controls "open", as in the dashboard walk): on a shared daemon (operator) the Sim tab
// keeps the faucet and says prices are the operator's, with no form a user could not use.
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { Browser } from "playwright-core";
import { startTestDaemon, type TestDaemon } from "../helpers/daemon.js";
import { launchChromium } from "./helpers/chromium.js";
import { expectNotice, go, openUser, signIn, type User } from "./helpers/pages.js";
import { BUSY_MACHINE } from "../helpers/busy-machine.js";

let d: TestDaemon;
let browser: Browser;
let u: User;

test.before(async () => {
  d = await startTestDaemon({ startOracle: false, config: { ...BUSY_MACHINE, simControls: "operator" } });
  browser = await launchChromium();
  u = await openUser(browser, d.url);
  await signIn(u);
});
test.after(async () => {
  await browser?.close();
  await d?.close();
});

test("under --sim-controls operator the Sim tab has the faucet but no price control", async () => {
  await go(u, "#sim", "#faucet-form");
  assert.is(await u.page.locator("#price-form").count(), 0);
  assert.match((await u.page.textContent("#prices-reserved")) ?? "", /only its operator moves sim prices/);
  await u.page.fill("#faucet-form [name=amount]", "250");
  await u.page.click("#faucet");
  await expectNotice(u, "Credited 250");
  assert.equal(u.problems, []);
});

test.run();
