/// <reference lib="dom" />
// The account screen lists the notices addressed to you (GET /api/notices), each in the describer's
// sentence: here a stop on your own account that did not fill and the close that stood in for it.
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { Browser } from "playwright-core";
import { startTestDaemon, type TestDaemon } from "../helpers/daemon.js";
import { insertNotice } from "../../daemon/db/user-notices-repo.js";
import { launchChromium } from "./helpers/chromium.js";
import { go, openUser, signIn, type User } from "./helpers/pages.js";
import { BUSY_MACHINE } from "../helpers/busy-machine.js";

let d: TestDaemon;
let browser: Browser;
let u: User;

test.before(async () => {
  d = await startTestDaemon({ startOracle: false, config: BUSY_MACHINE });
  browser = await launchChromium();
  u = await openUser(browser, d.url);
  await signIn(u);
});
test.after(async () => {
  await browser?.close();
  await d?.close();
});

test("the account screen tells your notices, newest first; none is said so", async () => {
  await go(u, "#account", "#notices-card");
  assert.match((await u.page.textContent("#notices-card")) ?? "", /Nothing yet/);
  const stop = { symbol: "SOL", kind: "sl", triggerPrice: "140", size: "2", account: u.address };
  const now = Date.now();
  await d.daemon.store.write(async (trx) => {
    await insertNotice(trx, { key: "StopFailed:a", user: u.address, type: "StopFailed", created_at: now - 1000,
      data: JSON.stringify({ ...stop, orderId: 7, reason: "it fired but the market order found no fill within its price bound" }) });
    await insertNotice(trx, { key: "StopFilled:a", user: u.address, type: "StopFilled", created_at: now,
      data: JSON.stringify({ ...stop, price: "126.05", orderId: 8, attempts: 1 }) });
  });
  await go(u, "#vaults", "#vaults");
  await go(u, "#account", "#notices-card li");
  const items = await u.page.locator("#notices-card li").allTextContents();
  assert.is(items.length, 2);
  assert.match(items[0]!, /Stop held: Account 0x.{4}….{4}: the SOL stop-loss at 140 held: closed 2 SOL at 126.05/);
  assert.match(items[1]!, /Stop did not fill: .*fired but did not fill \(it fired but the market order found no fill within its price bound\)/);
  assert.equal(u.problems, []);
});

test.run();
