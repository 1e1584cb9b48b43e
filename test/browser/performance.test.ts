/// <reference lib="dom" />
// The vault page's Performance card in a real browser against a real daemon: the figures of a vault
// with known readings and fills, its CSV export links answering CSV on the page's session, "if
// closed now" with the age of the reading it stands on (on the page's clock, moved by the test), and
// none of it on a closed vault, whose settlement the status card shows instead.
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { Browser } from "playwright-core";
import { getAddress } from "ethers";
import { appendFills } from "../../daemon/db/vault-trades-repo.js";
import type { NewVault } from "../../daemon/db/schema-chain.js";
import { findVault, insertEvent, insertVault } from "../../daemon/db/vaults-repo.js";
import { startTestDaemon, type TestDaemon } from "../helpers/daemon.js";
import { randomAddress, randomHash, vaultRow } from "../helpers/rows.js";
import { launchChromium } from "./helpers/chromium.js";
import { go, openUser, signIn } from "./helpers/pages.js";
import { BUSY_MACHINE } from "../helpers/busy-machine.js";

let d: TestDaemon;
let browser: Browser;
const T0 = Date.UTC(2026, 10, 1) / 1000;

test.before(async () => {
  [d, browser] = await Promise.all([startTestDaemon({ startOracle: false, config: BUSY_MACHINE }), launchChromium()]);
});
test.after(async () => {
  await browser?.close();
  await d?.close();
});

/** Initial 10000; readings 9000 (day 1, 10% under the peak) and 10800 (day 3); two fills paying 1.5 each. */
async function scriptedVault(investor: string, more: Partial<NewVault> = {}): Promise<string> {
  const row = { ...vaultRow(getAddress(randomAddress())), investor, created_at: T0, current_balance: "10800000000", last_observed_at: T0 + 2 * 86_400, ...more };
  await d.daemon.store.write(async (trx) => {
    await insertVault(trx, row);
    const v = (await findVault(trx, row.address))!;
    for (const [i, [at, balance]] of ([[3600, "9000000000"], [2 * 86_400, "10800000000"]] as const).entries()) {
      await insertEvent(trx, v, {
        type: "BalanceUpdated", txHash: randomHash(), logIndex: 0, blockNumber: 2 + i, time: T0 + at,
        data: { balance, peakBalance: "10000000000", dayStartBalance: balance, observedAt: T0 + at, drawdownBps: 0, dailyDrawdownBps: 0 },
      });
    }
    await appendFills(trx, row.address, row.exchange_account, [0, 1].map((i) => ({
      tid: 70_000 + i, oid: 1, symbol: "ETH", side: "buy" as const, size: "1", price: "3000", pnl: "0", fee: "1.5", timeMs: (T0 + 60 * i) * 1000,
    })));
  });
  return row.address;
}

test("the Performance card shows the vault's figures and links its CSV exports", async () => {
  const ivy = await openUser(browser, d.url);
  await signIn(ivy);
  const vault = await scriptedVault(ivy.address);
  await go(ivy, `#vault/${vault}`, "#perf-return");
  const text = async (id: string) => (await ivy.page.textContent(id))?.trim();
  assert.is(await text("#perf-return"), "8%"); // 800 / 10000
  assert.is(await text("#perf-annualized"), "1460%"); // 8% x 365 / 2 days
  assert.is(await text("#perf-drawdown"), `10% at ${new Date((T0 + 3600) * 1000).toISOString().replace("T", " ").slice(0, 16)} UTC`);
  assert.is(await text("#perf-fees"), "3.00 USDC");
  assert.is(await text("#perf-if-closed"), "profit 800.00, trader 160.00, investor 640.00 USDC");
  assert.match((await text("#perf-daily")) ?? "", /2026-11-0310,800.001,800.00.*2026-11-019,000.00-1,000.00/);
  const csv = await ivy.page.evaluate(async () => {
    const r = await fetch((document.querySelector("#export-trades") as HTMLAnchorElement).href);
    return { type: r.headers.get("content-type"), text: await r.text() };
  });
  assert.match(csv.type ?? "", /^text\/csv/);
  assert.is(csv.text.split("\r\n").filter(Boolean).length, 3, "header and both fills");
  assert.equal(ivy.problems, [], "no page errors, no CSP violations");
});

test("'if closed now' says how old its reading is, and the age goes on as the page's clock does", async () => {
  const ivy = await openUser(browser, d.url);
  await signIn(ivy);
  const vault = await scriptedVault(ivy.address);
  // The page's clock 42 s past the vault's last reading, paused: the test moves it.
  const reading = (T0 + 2 * 86_400) * 1000;
  await ivy.page.clock.install({ time: reading + 40_000 });
  await ivy.page.clock.pauseAt(reading + 42_000);
  await go(ivy, `#vault/${vault}`, "#perf-if-closed");
  const label = () => ivy.page.locator("#perf-if-closed").evaluate((dd) => dd.previousElementSibling!.textContent);
  assert.is(await label(), "If closed now (reading 42 s ago)");
  await ivy.page.clock.runFor(20_000);
  assert.is(await label(), "If closed now (reading 62 s ago)");
  await ivy.page.clock.runFor(10 * 60_000);
  assert.is(await label(), "If closed now (reading 11 min ago)"); // 662 s
  assert.equal(ivy.problems, []);
});

test("a closed vault has no 'if closed now': its status card shows what the close settled", async () => {
  const ivy = await openUser(browser, d.url);
  await signIn(ivy);
  const vault = await scriptedVault(ivy.address, {
    closed: 1, closed_at: T0 + 3 * 86_400, final_balance: "10800000000", profit: "800000000", trader_share: "160000000", investor_share: "640000000",
  });
  await go(ivy, `#vault/${vault}`, "#perf-return");
  assert.is(await ivy.page.textContent("#perf-return"), "8%", "the other figures stand on the final balance");
  assert.is(await ivy.page.locator("#perf-if-closed").count(), 0);
  assert.not.match((await ivy.page.textContent("#vault-performance"))!, /closed now/i);
  assert.match((await ivy.page.textContent("#vault-settlement"))!, /^final balance 10,800.00, profit 800.00: trader 160.00, investor 640.00 USDC;/);
  assert.equal(ivy.problems, []);
});

test.run();
