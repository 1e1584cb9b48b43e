// The breach policy both parties sign: "pause" refuses every vault order after a breach,
// "reduce-only" still lets the trader take risk off, "flatten" closes every position at once. The
// policy is part of the signed terms (the typed data and the contract hold it), so neither party can
// change it afterwards. Each test breaches its own vault (see helpers/vaults.ts `breach`).
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { Contract } from "ethers";
import { readFileSync } from "node:fs";
import type { TestDaemon } from "../helpers/daemon.js";
import { assertEvents, breach, stranger, vaultCase, vaultDetail, vaultTrade, type VaultCase } from "../helpers/vaults.js";
import { startVaultDaemon } from "../helpers/vaults.js";

const t = suite<{ d: TestDaemon }>("breach policy");
t.before(async (ctx) => {
  ctx.d = await startVaultDaemon({ staleAfter: 5, oracleInterval: 1 });
});
t.after(async (ctx) => {
  await ctx.d.close();
});

const positions = async (c: VaultCase) => {
  const r = await c.d.http.get(`/api/positions?vaultAddress=${c.vault}`, { token: c.tom.token });
  assert.is(r.status, 200, JSON.stringify(r.body));
  return r.body.data.positions as Array<{ symbol: string; size: number }>;
};

async function chainTerms(c: VaultCase) {
  const abi = JSON.parse(readFileSync(new URL("../../artifacts/contracts/TradingVault.sol/TradingVault.json", import.meta.url), "utf8")).abi;
  return (await new Contract(c.vault, abi, c.d.daemon.chain.provider).getFunction("state")()).terms;
}

t("the policy is a signed term: in the typed data, the proposal, the vault detail and the contract", async ({ d }) => {
  const c = await vaultCase(d, { breachPolicy: "reduce-only" });
  assert.is((await vaultDetail(c)).breachPolicy, "reduce-only");
  assert.is(Number((await chainTerms(c)).breachPolicy), 1);
  const proposals = (await d.http.get("/api/proposals", { token: c.tom.token })).body.data.proposals;
  const p = proposals.find((x: { vaultAddress: string }) => x.vaultAddress === c.vault);
  assert.is(p.breachPolicy, "reduce-only");
  assert.is(p.typedData.message.breachPolicy, "1");
  assert.ok(p.typedData.types.VaultTerms.some((f: { name: string; type: string }) => f.name === "breachPolicy" && f.type === "uint8"));
});

t("no policy given means pause; an unknown one is 400 INVALID_INPUT naming the field", async ({ d }) => {
  const c = await vaultCase(d);
  assert.is((await vaultDetail(c)).breachPolicy, "pause");
  assert.is(Number((await chainTerms(c)).breachPolicy), 0);
  const bad = await d.http.post("/api/proposals", {
    investor: c.ivy.address, trader: c.tom.address, initialBalance: "100", maxDrawdown: 10, dailyDrawdown: 5,
    dealDeadline: Math.floor(d.clock() / 1000) + 86_400, profitShare: { trader: 20, investor: 80 }, breachPolicy: "liquidate",
  }, { token: c.tom.token });
  assert.is(bad.status, 400);
  assert.is(bad.body.error.code, "INVALID_INPUT");
  assert.match(JSON.stringify(bad.body.error.details), /breachPolicy/);
});

t("pause: after a breach even a reduce-only order is refused with VAULT_PAUSED", async ({ d }) => {
  const c = await vaultCase(d);
  await breach(c);
  const r = await vaultTrade(c, c.tom, { side: "sell", size: 0.05, reduceOnly: true });
  assert.is(r.status, 409, JSON.stringify(r.body));
  assert.is(r.body.error.code, "VAULT_PAUSED");
  const close = await d.http.post("/api/positions/close", { symbol: "BTC", vaultAddress: c.vault }, { token: c.tom.token });
  assert.is(close.status, 409);
  // The refusal says where the vault stands and what the trader can do.
  assert.match(close.body.error.message, /daily drawdown \d+(\.\d+)?% \(limit 5%\)/);
  assert.match(close.body.error.message, /close the vault/);
  assert.match(close.body.error.message, /unpauses once the balance has recovered/);
});

t("reduce-only: while paused the trader may reduce and close, but not add; others are still refused", async ({ d }) => {
  const c = await vaultCase(d, { breachPolicy: "reduce-only" });
  const eve = await stranger(d);
  await breach(c);
  assert.is((await vaultDetail(c)).paused, true);
  const adding = await vaultTrade(c, c.tom, { size: 0.01 });
  assert.is(adding.status, 409);
  assert.is(adding.body.error.code, "VAULT_PAUSED");
  assert.match(adding.body.error.message, /reduce-only/);
  // A sell that is not flagged reduce-only could open a short past the position: refused too.
  assert.is((await vaultTrade(c, c.tom, { side: "sell", size: 0.05 })).status, 409);
  assert.is((await vaultTrade(c, c.ivy, { side: "sell", size: 0.05, reduceOnly: true })).status, 403);
  assert.is((await vaultTrade(c, eve, { side: "sell", size: 0.05, reduceOnly: true })).status, 404);

  const reduce = await vaultTrade(c, c.tom, { side: "sell", size: 0.05, reduceOnly: true });
  assert.is(reduce.status, 200, JSON.stringify(reduce.body));
  assert.is((await positions(c)).find((p) => p.symbol === "BTC")?.size, 0.05);
  const close = await d.http.post("/api/positions/close", { symbol: "BTC", vaultAddress: c.vault }, { token: c.tom.token });
  assert.is(close.status, 200, JSON.stringify(close.body));
  assert.equal(await positions(c), []);
});

t("flatten: a breach cancels the orders and closes every position at once, and says so in an event", async ({ d }) => {
  const c = await vaultCase(d, { breachPolicy: "flatten" });
  await breach(c);
  assert.equal(await positions(c), [], "no position left");
  assert.equal((await d.http.get(`/api/orders?vaultAddress=${c.vault}`, { token: c.tom.token })).body.data.orders, []);
  const events = (await d.http.get(`/api/vaults/${c.vault}/events?limit=100`, { token: c.ivy.token })).body.data.events;
  const flat = events.find((e: { type: string }) => e.type === "Flattened");
  assert.ok(flat, events.map((e: { type: string }) => e.type).join());
  assert.is(flat.data.canceledOrders, 1);
  assert.is(flat.data.positions.length, 1);
  assert.is(flat.data.positions[0].symbol, "BTC");
  assert.is(flat.data.positions[0].size, "0.1");
  const px = Number(flat.data.positions[0].averagePrice);
  assert.ok(Math.abs(px - 53_000) < 53, `closed near the breach price (the sim's book spreads around the mark): ${px}`);
  await assertEvents(c, ["Paused"]);
  const after = await vaultTrade(c, c.tom, { side: "sell", size: 0.01, reduceOnly: true });
  assert.is(after.status, 409, "a flattened vault stays paused until the trader unpauses");
});

t.run();
