// Account modes: a vault's balance is the perp account value, which is the account's value
// only in Hyperliquid's standard modes. A proposal on an account in another mode is refused; a vault
// whose account leaves them is paused on-chain by the operator's pause(4), with an event, and its
// trader cannot unpause until the account is standard again. The sim reports the mode that
// POST /sim/abstraction sets, as the venue's userAbstraction would.
import { suite } from "uvu";
import * as assert from "uvu/assert";
import type { TestDaemon } from "../helpers/daemon.js";
import { assertEvents, chainVaultState, setPrice, startVaultDaemon, vaultCase, vaultDetail, vaultPost, vaultTrade } from "../helpers/vaults.js";
import { party } from "../helpers/daemon.js";

const t = suite<{ d: TestDaemon }>("account modes");
t.before(async (ctx) => {
  ctx.d = await startVaultDaemon({ staleAfter: 5, oracleInterval: 1 });
});
t.after(async (ctx) => {
  await ctx.d.close();
});

async function setMode(d: TestDaemon, user: string, abstraction: string) {
  const r = await fetch(`${d.daemon.sim!.url}/sim/abstraction`, {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ user, abstraction }),
  });
  assert.is(r.status, 200, await r.text());
}

t("a proposal on an account in unified mode is refused, naming the exchange account", async ({ d }) => {
  const [ivy, tom] = await Promise.all([party(d, { usdc: 1000 }), party(d)]);
  await setMode(d, ivy.address, "unifiedAccount");
  const r = await d.http.post("/api/proposals", {
    investor: ivy.address, trader: tom.address, initialBalance: "1000", maxDrawdown: 10, dailyDrawdown: 5,
    dealDeadline: Math.floor(d.clock() / 1000) + 86_400, profitShare: { trader: 20, investor: 80 },
  }, { token: tom.token });
  assert.is(r.status, 400, JSON.stringify(r.body));
  assert.is(r.body.error.code, "INVALID_INPUT");
  assert.is(r.body.error.details[0].field, "body.exchangeAccount");
  assert.match(r.body.error.message, /unifiedAccount/);
});

t("the first cycle records a standard account's mode, and pauses nothing", async ({ d }) => {
  const c = await vaultCase(d);
  await d.daemon.oracle.cycle();
  const v = await vaultDetail(c);
  assert.is(v.accountMode, "disabled");
  assert.is(v.paused, false);
});

t("an account that leaves the standard modes pauses its vault on-chain (accountMode) until it returns", async ({ d }) => {
  const c = await vaultCase(d);
  const entry = await vaultTrade(c, c.tom, { size: 0.01, price: 40000 });
  assert.is(entry.status, 200, JSON.stringify(entry.body));
  await setMode(d, c.ivy.address, "portfolioMargin");
  await d.daemon.oracle.cycle();
  const v = await vaultDetail(c);
  assert.is(v.paused, true);
  assert.is(v.pauseReason, "accountMode");
  assert.is(v.accountMode, "portfolioMargin");
  assert.is((await chainVaultState(c)).paused, true);
  // The cycle that paused it enforced its breach policy too: the resting entry is gone.
  assert.is(v.enforcement?.state, "holds", JSON.stringify(v.enforcement));
  const orders = await d.http.get(`/api/orders?vaultAddress=${c.vault}`, { token: c.tom.token });
  assert.equal(orders.body.data.orders, []);
  await assertEvents(c, ["AccountModeChanged", "Paused", "OrdersCanceled"]);
  const trade = await d.http.post("/api/trade", { symbol: "BTC", side: "buy", size: 0.01, vaultAddress: c.vault }, { token: c.tom.token });
  assert.is(trade.status, 409);

  const early = await vaultPost(c, "unpause", c.tom);
  assert.is(early.status, 409, JSON.stringify(early.body));
  assert.match(early.body.error.message, /portfolioMargin/);
  await setMode(d, c.ivy.address, "disabled");
  setPrice(d, "BTC", "60000");
  const ok = await vaultPost(c, "unpause", c.tom);
  assert.is(ok.status, 200, JSON.stringify(ok.body));
  assert.is((await chainVaultState(c)).paused, false);
});

t.run();
