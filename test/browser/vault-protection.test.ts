/// <reference lib="dom" />
// The vault page's order form with a stop loss and a take profit, in a real browser against a real
// daemon: the request carries them beside the entry (POST /api/trade's stopLoss / takeProfit, with the
// vault's address), the notice tells each one's state, and the open orders show the stop waiting on a
// resting entry, and as a trigger order of its own once a market entry filled.
import * as assert from "uvu/assert";
import type { Request } from "playwright-core";
import { expectNotice, go } from "./helpers/pages.js";
import { vaultPageSuite, type VaultPageCtx } from "./helpers/vault-parties.js";

type Ctx = VaultPageCtx;
const t = vaultPageSuite("vault protection");

/** Fills the vault page's form and submits it; returns the request the page sent. */
async function place(ctx: Ctx, values: Record<string, string>): Promise<Request> {
  const { tom } = ctx.p;
  for (const [name, value] of Object.entries(values)) await tom.page.fill(`#order-form [name=${name}]`, value);
  const sent = tom.page.waitForRequest((r) => new URL(r.url()).pathname === "/api/trade" && r.method() === "POST");
  await tom.page.click("#place-order");
  return sent;
}

t("a resting entry with a stop and a target: both travel with it, and wait for its fill in the notice and in the open orders", async (ctx) => {
  const { tom, vault } = ctx.p;
  await go(tom, `#vault/${vault}`, "#order-form");
  const sent = await place(ctx, { size: "0.01", price: "55000", stopLoss: "50000", takeProfit: "65000" });
  assert.equal(sent.postDataJSON(), {
    symbol: "BTC", side: "buy", size: "0.01", price: "55000", tif: "GTC",
    stopLoss: { price: "50000" }, takeProfit: { price: "65000" }, vaultAddress: vault,
  });
  await expectNotice(tom, "submitted");
  assert.match((await tom.page.textContent("#notice"))!, /^Order \d+ submitted; stop 50,000 waits for the fill, target 65,000 waits for the fill\.$/);
  const row = tom.page.locator("#orders tbody tr", { hasText: "55,000" });
  await row.waitFor();
  assert.match((await row.locator("td").nth(5).textContent())!, /^stop 50,000 waits for the fill; target 65,000 waits for the fill$/);
  assert.equal(tom.problems, []);
});

t("a market entry with a stop: once it filled, the stop is a trigger order of its own among the vault's open orders", async (ctx) => {
  const { tom } = ctx.p;
  await place(ctx, { size: "0.01", price: "", stopLoss: "57000", takeProfit: "" });
  await expectNotice(tom, "submitted, filled 0.01 @ ");
  assert.match((await tom.page.textContent("#notice"))!, /; stop 57,000 /);
  const stop = tom.page.locator("#orders tbody tr", { hasText: "Stop 57,000 (market)" });
  await stop.waitFor();
  assert.equal((await stop.locator("td").allTextContents()).slice(1, 3), ["BTC", "sell"], "it sells the long it protects");
  assert.equal(tom.problems, []);
});

t.run();
