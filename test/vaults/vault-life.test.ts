// The whole life of a vault through the HTTP API, against the embedded chain and the sim: creation
// from two signatures, trading, a forced breach, VAULT_PAUSED, unpause refused then accepted,
// BALANCE_STALE, close with the split checked against the contract, funding and withdrawals checked
// on-chain, a stranger refused at every step, and the SSE stream.
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { readTokenBalance } from "../../daemon/chain/deploy.js";
import { readVaultState } from "../../daemon/chain/contracts.js";
import { createVault, fakeClock, party, signTyped, startTestDaemon, type Party, type TestDaemon } from "../helpers/daemon.js";
import { openSse, type SseReader } from "../helpers/sse.js";
import { waitUntil } from "../helpers/util.js";

interface Ctx { d: TestDaemon; ivy: Party; tom: Party; eve: Party; vault: string; streams: Record<string, SseReader> }
const t = suite<Ctx>("vault life");
t.before(async (ctx) => {
  // The chain keeps real time, so this daemon's clock runs with it (tests only move it forward).
  ctx.d = await startTestDaemon({ startOracle: false, clock: fakeClock(Date.now(), { realTime: true }), config: { staleAfter: 5, oracleInterval: 1 } });
  ctx.ivy = await party(ctx.d, { usdc: 10_000, agent: true });
  ctx.tom = await party(ctx.d);
  ctx.eve = await party(ctx.d, { usdc: 1000, agent: true });
  ctx.streams = {};
});
t.after(async (ctx) => {
  for (const s of Object.values(ctx.streams)) s.close();
  await ctx.d.close();
});

const price = (d: TestDaemon, symbol: string, px: string) => d.daemon.sim!.setPrice(symbol, px);
const detail = async (ctx: Ctx, who: Party = ctx.tom) => (await ctx.d.http.get(`/api/vaults/${ctx.vault}`, { token: who.token })).body.data.vault;
/** GET /api/vaults (served from a cache that must follow every change) for one party. */
const listed = async (ctx: Ctx, who: Party) => {
  const r = await ctx.d.http.get("/api/vaults", { token: who.token });
  assert.is(r.status, 200);
  assert.match(r.headers.get("content-type") ?? "", /^application\/json/);
  return r.body.data.vaults.find((x: { address: string }) => x.address === ctx.vault);
};
const trade = (ctx: Ctx, who: Party, body: Record<string, unknown> = {}) =>
  ctx.d.http.post("/api/trade", { symbol: "BTC", side: "buy", size: 0.1, vaultAddress: ctx.vault, ...body }, { token: who.token });

t("creation from two signatures; the vault reads back in SPEC's shapes; strangers get 404", async (ctx) => {
  ctx.vault = await createVault(ctx.d, ctx.ivy, ctx.tom);
  for (const who of ["ivy", "tom", "eve"] as const) ctx.streams[who] = await openSse(`${ctx.d.url}/api/events`, ctx[who].token);
  const list = (await ctx.d.http.get("/api/vaults", { token: ctx.ivy.token })).body.data.vaults;
  assert.equal(list[0], {
    address: ctx.vault, investor: ctx.ivy.address, trader: ctx.tom.address, initialBalance: "10000", currentBalance: "10000",
    status: "ACTIVE", paused: false, dealDeadline: list[0].dealDeadline, profitShare: { trader: 20, investor: 80 },
  });
  assert.equal((await ctx.d.http.get("/api/vaults", { token: ctx.eve.token })).body.data.vaults, []);
  assert.is((await ctx.d.http.get(`/api/vaults/${ctx.vault}`, { token: ctx.eve.token })).status, 404);
  assert.is((await ctx.d.http.get(`/api/vaults/${ctx.vault}/trades`, { token: ctx.eve.token })).status, 404);
  assert.is((await ctx.d.http.get(`/api/vaults/${ctx.vault}/events`, { token: ctx.eve.token })).status, 404);
  const v = await detail(ctx);
  for (const k of ["maxDrawdown", "dailyDrawdown", "currentDrawdown", "dealDeadline"]) assert.type(v[k], "number", k);
  for (const k of ["initialBalance", "currentBalance", "peakBalance"]) assert.type(v[k], "string", k);
  assert.equal([v.maxDrawdown, v.dailyDrawdown, v.closed, v.paused], [10, 5, false, false]);
  assert.ok(Number.isInteger(v.lastBalanceUpdate), "the first reading was written at creation");
  assert.ok(Array.isArray(v.trades) && Array.isArray(v.positions));
});

t("only the trader trades the vault: investor 403, stranger 404; fills become vault trades", async (ctx) => {
  assert.is((await trade(ctx, ctx.ivy)).status, 403);
  assert.is((await trade(ctx, ctx.eve)).status, 404);
  const r = await trade(ctx, ctx.tom);
  assert.is(r.status, 200, JSON.stringify(r.body));
  await ctx.d.daemon.oracle.cycle();
  const trades = (await ctx.d.http.get(`/api/vaults/${ctx.vault}/trades`, { token: ctx.ivy.token })).body.data;
  assert.is(trades.total, 1);
  assert.equal(Object.keys(trades.trades[0]).sort(), ["fee", "id", "pnl", "price", "side", "size", "symbol", "timestamp"]);
  assert.equal([trades.trades[0].symbol, trades.trades[0].side, trades.trades[0].size], ["BTC", "buy", 0.1]);
  assert.type(trades.trades[0].id, "string");
  const positions = (await detail(ctx)).positions;
  assert.is(positions[0].size, 0.1);
  // the vault's orders are on the investor's exchange account, not the trader's
  assert.is((await ctx.d.http.get("/api/positions", { token: ctx.tom.token })).body.data.positions.length, 0);
});

t("a breach pauses the vault on-chain; trades then fail with VAULT_PAUSED; SSE reaches the parties only", async (ctx) => {
  const resting = await trade(ctx, ctx.tom, { size: 0.01, price: 40000 });
  assert.is(resting.status, 200);
  price(ctx.d, "BTC", "53000"); // about -700 on 10000: past the 5% daily limit, not the 10% max
  await ctx.d.daemon.oracle.cycle();
  const v = await detail(ctx);
  assert.is(v.paused, true);
  assert.is(v.pauseReason, "dailyDrawdown");
  for (const who of [ctx.ivy, ctx.tom]) {
    const row = await listed(ctx, who);
    assert.is(row.paused, true, "the list follows the pause at once");
    assert.is(row.currentBalance, v.currentBalance);
  }
  assert.ok(v.currentDailyDrawdown >= 5 && v.currentDrawdown < 10, JSON.stringify(v));
  assert.is((await readVaultState(ctx.d.daemon.chain.provider, { vault: ctx.vault })).paused, true);
  const paused = await trade(ctx, ctx.tom, { size: 0.01 });
  assert.is(paused.status, 409);
  assert.is(paused.body.error.code, "VAULT_PAUSED");
  // its resting orders were canceled
  assert.equal((await ctx.d.http.get(`/api/orders?vaultAddress=${ctx.vault}`, { token: ctx.tom.token })).body.data.orders, []);

  for (const who of ["ivy", "tom"] as const) {
    await waitUntil(() => ctx.streams[who]!.events.some((e) => e.event === "Paused"), { what: `${who}'s Paused event` });
    const types = ctx.streams[who]!.events.map((e) => e.event);
    assert.ok(types.includes("BalanceUpdated"), types.join());
    assert.ok(ctx.streams[who]!.events.every((e) => e.data.vault === ctx.vault));
  }
  assert.is(ctx.streams.eve!.events.length, 0);
  const ids = ctx.streams.ivy!.events.map((e) => e.id);
  assert.equal(ids, [...ids].sort((a, b) => a - b), "ids increase");
});

t("unpause: investor 403, stranger 404, trader refused until recovered, then accepted", async (ctx) => {
  assert.is((await ctx.d.http.post(`/api/vaults/${ctx.vault}/unpause`, undefined, { token: ctx.ivy.token })).status, 403);
  assert.is((await ctx.d.http.post(`/api/vaults/${ctx.vault}/unpause`, undefined, { token: ctx.eve.token })).status, 404);
  const early = await ctx.d.http.post(`/api/vaults/${ctx.vault}/unpause`, undefined, { token: ctx.tom.token });
  assert.is(early.status, 409);
  assert.is(early.body.error.code, "NOT_RECOVERED");
  price(ctx.d, "BTC", "66000");
  const ok = await ctx.d.http.post(`/api/vaults/${ctx.vault}/unpause`, undefined, { token: ctx.tom.token });
  assert.is(ok.status, 200, JSON.stringify(ok.body));
  assert.is(ok.body.data.vault.paused, false);
  assert.is((await listed(ctx, ctx.ivy)).paused, false);
  assert.is((await readVaultState(ctx.d.daemon.chain.provider, { vault: ctx.vault })).paused, false);
});

t("a balance older than --stale-after makes vault trades fail with 503 BALANCE_STALE", async (ctx) => {
  ctx.d.daemon.sim!.faults.next({ kind: "http500", endpoint: "info", count: 100 });
  ctx.d.clock.advance(10_000);
  // cannot read the exchange: nothing new is written, and a cycle that read no vault is a failure
  const failed = await ctx.d.daemon.oracle.cycle().then(() => undefined, (e: Error) => e.message);
  assert.match(failed ?? "", /no active vault could be read/);
  const r = await trade(ctx, ctx.tom, { size: 0.01 });
  assert.is(r.status, 503, JSON.stringify(r.body));
  assert.is(r.body.error.code, "BALANCE_STALE");
  assert.ok(Number(r.headers.get("retry-after")) >= 1);
  ctx.d.daemon.sim!.faults.clear();
  await ctx.d.daemon.oracle.cycle();
  assert.is((await trade(ctx, ctx.tom, { size: 0.01 })).status, 200);
});

t("close: stranger 404; the investor closes; the split matches the contract; the vault is then frozen", async (ctx) => {
  assert.is((await ctx.d.http.post(`/api/vaults/${ctx.vault}/close`, undefined, { token: ctx.eve.token })).status, 404);
  const r = await ctx.d.http.post(`/api/vaults/${ctx.vault}/close`, undefined, { token: ctx.ivy.token });
  assert.is(r.status, 200, JSON.stringify(r.body));
  const c = r.body.data.vault;
  assert.equal(Object.keys(c).sort(), ["address", "finalBalance", "investorShare", "profit", "status", "traderShare"]);
  assert.is(c.status, "CLOSED");
  assert.is((await listed(ctx, ctx.tom)).status, "CLOSED");
  const s = await readVaultState(ctx.d.daemon.chain.provider, { vault: ctx.vault });
  assert.ok(s.closed);
  const usdc = (x: bigint) => Number(x) / 1e6;
  assert.is(c.finalBalance, (Number(s.finalBalance) / 1e6).toString());
  assert.is(c.profit, usdc(s.profit));
  assert.is(c.traderShare, usdc(s.traderShare));
  assert.is(c.investorShare, usdc(s.investorShare));
  assert.ok(s.profit > 0n, "BTC went from ~60000 to 66000");
  assert.is(s.traderShare, (s.profit * 2000n) / 10000n, "20% of the profit, rounded down");
  assert.equal((await detail(ctx)).positions, [], "positions were flattened");
  assert.is((await trade(ctx, ctx.tom, { size: 0.01 })).body.error.code, "VAULT_CLOSED");
  assert.is((await ctx.d.http.post(`/api/vaults/${ctx.vault}/close`, undefined, { token: ctx.tom.token })).body.error.code, "VAULT_CLOSED");
});

t("fund (investor, by permit) and withdraw (each party, to its own address) with amounts checked on-chain", async (ctx) => {
  const token = ctx.d.daemon.chain.addresses.token;
  const provider = ctx.d.daemon.chain.provider;
  const empty = await ctx.d.http.post(`/api/vaults/${ctx.vault}/withdraw`, undefined, { token: ctx.tom.token });
  assert.is(empty.body.error.code, "NOTHING_TO_WITHDRAW");
  assert.is((await ctx.d.http.post(`/api/vaults/${ctx.vault}/fund/prepare`, { amount: "500" }, { token: ctx.tom.token })).status, 403);
  assert.is((await ctx.d.http.post(`/api/vaults/${ctx.vault}/fund/prepare`, { amount: "500" }, { token: ctx.eve.token })).status, 404);
  const prep = (await ctx.d.http.post(`/api/vaults/${ctx.vault}/fund/prepare`, { amount: "500" }, { token: ctx.ivy.token })).body.data;
  assert.is(prep.typedData.primaryType, "Permit");
  assert.is(prep.typedData.message.spender, ctx.vault);
  const ivyBefore = await readTokenBalance(provider, { token, account: ctx.ivy.address });
  const funded = await ctx.d.http.post(`/api/vaults/${ctx.vault}/fund`, { amount: "500", deadline: prep.deadline, signature: await signTyped(ctx.ivy.wallet, prep.typedData) }, { token: ctx.ivy.token });
  assert.is(funded.status, 200, JSON.stringify(funded.body));
  assert.match(funded.body.data.txHash, /^0x[0-9a-f]{64}$/);
  assert.is(await readTokenBalance(provider, { token, account: ctx.vault }), 500_000_000n);
  assert.is(await readTokenBalance(provider, { token, account: ctx.ivy.address }), ivyBefore - 500_000_000n);

  const s = await readVaultState(provider, { vault: ctx.vault });
  assert.is((await ctx.d.http.post(`/api/vaults/${ctx.vault}/withdraw`, undefined, { token: ctx.eve.token })).status, 404);
  const tw = await ctx.d.http.post(`/api/vaults/${ctx.vault}/withdraw`, undefined, { token: ctx.tom.token });
  assert.is(tw.status, 200, JSON.stringify(tw.body));
  assert.equal([tw.body.data.recipient, tw.body.data.amount], [ctx.tom.address, (Number(s.traderShare) / 1e6).toString()]);
  assert.is(await readTokenBalance(provider, { token, account: ctx.tom.address }), s.traderShare);
  const iw = await ctx.d.http.post(`/api/vaults/${ctx.vault}/withdraw`, undefined, { token: ctx.ivy.token });
  assert.is(iw.body.data.recipient, ctx.ivy.address);
  assert.is(await readTokenBalance(provider, { token, account: ctx.vault }), 0n);
  assert.is(await readTokenBalance(provider, { token, account: ctx.ivy.address }), ivyBefore - s.traderShare);
  assert.is((await ctx.d.http.post(`/api/vaults/${ctx.vault}/withdraw`, undefined, { token: ctx.tom.token })).body.error.code, "NOTHING_TO_WITHDRAW");
  const events = (await ctx.d.http.get(`/api/vaults/${ctx.vault}/events?limit=1000`, { token: ctx.ivy.token })).body.data.events.map((e: any) => e.type);
  for (const type of ["VaultCreated", "BalanceUpdated", "Paused", "Unpaused", "Closed", "Funded", "Withdrawn", "Fill", "OrdersCanceled"]) {
    assert.ok(events.includes(type), `${type} in ${events.join()}`);
  }
});

t("logout ends the user's event stream", async (ctx) => {
  await ctx.d.http.post("/api/auth/logout", undefined, { token: ctx.eve.token });
  await ctx.streams.eve!.ended;
  assert.ok(true);
});

t.run();
