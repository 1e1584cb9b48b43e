/// <reference lib="dom" />
// The dashboard's Alerts tab in a real browser against a real daemon (--webhooks-allow-private) and a
// receiver on 127.0.0.1: a webhook added (its secret shown once), tested (the receiver gets a signed
// message, the page says it was delivered), listed, and removed.
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { Browser } from "playwright-core";
import { startTestDaemon, type TestDaemon } from "../helpers/daemon.js";
import { waitUntil } from "../helpers/util.js";
import { startReceiver, verifySignature, type Receiver } from "../alerts/_receiver.js";
import { launchChromium } from "./helpers/chromium.js";
import { expectNotice, go, openUser, signIn } from "./helpers/pages.js";
import { BUSY_MACHINE } from "../helpers/busy-machine.js";

let d: TestDaemon;
let rx: Receiver;
let browser: Browser;

test.before(async () => {
  [d, rx, browser] = await Promise.all([startTestDaemon({ config: { ...BUSY_MACHINE, webhooksAllowPrivate: true } }), startReceiver(), launchChromium()]);
});
test.after(async () => {
  await browser?.close();
  await rx?.stop();
  await d?.close();
});

test("add a webhook, test it, see it listed, remove it", async () => {
  const ivy = await openUser(browser, d.url);
  await signIn(ivy);
  await go(ivy, "#alerts", "#webhook-form");
  await ivy.page.fill("#webhook-form [name=url]", rx.url("/browser"));
  await ivy.page.fill("#webhook-form [name=events]", "Paused,Closed");
  await ivy.page.click("#add-webhook");
  await expectNotice(ivy, "signing secret");
  const secret = /whsec_[0-9a-f]+/.exec((await ivy.page.textContent("#notice")) ?? "")?.[0];
  assert.ok(secret, "the secret is shown once");
  await ivy.page.waitForSelector("#webhooks table");
  assert.match((await ivy.page.textContent("#webhooks")) ?? "", "Paused, Closed");
  await ivy.page.click("#webhooks [data-test]");
  await expectNotice(ivy, "Delivered: 200");
  const [sent] = await waitUntil(() => rx.at("/browser").length > 0 && rx.at("/browser"), { what: "the test message" }) || [];
  assert.ok(verifySignature(secret!, sent!.headers["x-tradevault-signature"] as string, sent!.body));
  await ivy.page.click("#webhooks [data-remove]");
  await ivy.page.waitForSelector("p#webhooks.empty");
  assert.equal(ivy.problems, [], "no page errors, no CSP violations");
});

test.run();
