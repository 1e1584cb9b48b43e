// Proposals: terms in SPEC's units, validation, who may see and sign, rejection, expiry, and the
// one-active-vault-per-exchange-account rule.
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { createVault, party, signTyped, startTestDaemon, type Party, type TestDaemon } from "../helpers/daemon.js";
import { sql } from "kysely";
import { rows } from "../helpers/stores.js";

const t = suite<{ d: TestDaemon; ivy: Party; tom: Party; eve: Party }>("proposals");
t.before(async (ctx) => {
  ctx.d = await startTestDaemon({ startOracle: false });
  ctx.ivy = await party(ctx.d, { usdc: 10_000 });
  ctx.tom = await party(ctx.d);
  ctx.eve = await party(ctx.d);
});
t.after(async (ctx) => {
  await ctx.d.close();
});

const count = async (d: TestDaemon) => (await rows(d.daemon.store, sql<{ n: number }>`select count(*) as n from proposals`))[0]!.n;
const base = (ctx: { d: TestDaemon; ivy: Party; tom: Party }) => ({
  investor: ctx.ivy.address, trader: ctx.tom.address, initialBalance: "10000", maxDrawdown: 10, dailyDrawdown: 5,
  dealDeadline: Math.floor(ctx.d.clock() / 1000) + 30 * 86_400, profitShare: { trader: 20, investor: 80 },
});

t("a proposal carries the terms in SPEC's units and EIP-712 typed data ready for a wallet", async (ctx) => {
  const r = await ctx.d.http.post("/api/proposals", { ...base(ctx), maxDrawdown: 12.5 }, { token: ctx.tom.token });
  assert.is(r.status, 200, JSON.stringify(r.body));
  const p = r.body.data.proposal;
  assert.is(p.status, "PENDING");
  assert.is(p.initialBalance, "10000");
  assert.is(p.maxDrawdown, 12.5);
  assert.equal(p.profitShare, { trader: 20, investor: 80 });
  assert.is(p.exchangeAccount, ctx.ivy.address, "defaults to the investor");
  assert.equal(p.signedBy, { investor: false, trader: false });
  assert.is(p.vaultAddress, null);
  assert.is(p.typedData.primaryType, "VaultTerms");
  assert.is(p.typedData.domain.verifyingContract, ctx.d.daemon.chain.addresses.factory);
  assert.is(p.typedData.message.initialBalance, "10000000000", "base units, as a decimal string");
  assert.is(p.typedData.message.maxDrawdownBps, "1250");
  assert.ok(p.validUntil <= p.dealDeadline);
});

const bad: Array<[string, (b: ReturnType<typeof base>) => Record<string, unknown>, string]> = [
  ["a limit of 0", (b) => ({ ...b, maxDrawdown: 0 }), "body.maxDrawdown"],
  ["a limit over 100", (b) => ({ ...b, dailyDrawdown: 101 }), "body.dailyDrawdown"],
  ["a limit with 3 decimals", (b) => ({ ...b, maxDrawdown: 10.125 }), "body.maxDrawdown"],
  ["shares not adding up to 100", (b) => ({ ...b, profitShare: { trader: 20, investor: 79 } }), "body.profitShare"],
  ["a deadline in the past", (b) => ({ ...b, dealDeadline: 1_000_000 }), "body.dealDeadline"],
  ["a zero balance", (b) => ({ ...b, initialBalance: "0" }), "body.initialBalance"],
  ["a balance with 7 decimals", (b) => ({ ...b, initialBalance: "1.0000001" }), "body.initialBalance"],
  ["the same wallet on both sides", (b) => ({ ...b, trader: b.investor }), "body.trader"],
  ["an unknown field", (b) => ({ ...b, leverage: 5 }), "body"],
  ["a malformed address", (b) => ({ ...b, investor: "0x123" }), "body.investor"],
];
for (const [name, mutate, field] of bad) {
  t(`${name}: 400 INVALID_INPUT at ${field}, nothing written`, async (ctx) => {
    const before = await count(ctx.d);
    const r = await ctx.d.http.post("/api/proposals", mutate(base(ctx)), { token: ctx.tom.token });
    assert.is(r.status, 400, JSON.stringify(r.body));
    assert.ok(r.body.error.details.some((x: { field: string }) => x.field === field), JSON.stringify(r.body.error));
    assert.is(await count(ctx.d), before);
  });
}

t("a caller who is neither party cannot propose for others", async (ctx) => {
  const r = await ctx.d.http.post("/api/proposals", base(ctx), { token: ctx.eve.token });
  assert.is(r.status, 400);
  assert.is(r.body.error.details[0].field, "body.investor");
});

t("strangers see nothing; a wrong signature is refused; reject ends it", async (ctx) => {
  const p = (await ctx.d.http.post("/api/proposals", base(ctx), { token: ctx.ivy.token })).body.data.proposal;
  assert.is((await ctx.d.http.get(`/api/proposals/${p.id}`, { token: ctx.eve.token })).status, 404);
  assert.not.ok((await ctx.d.http.get("/api/proposals", { token: ctx.eve.token })).body.data.proposals.some((x: any) => x.id === p.id));
  const evesSig = await signTyped(ctx.eve.wallet, p.typedData);
  assert.is((await ctx.d.http.post(`/api/proposals/${p.id}/accept`, { signature: evesSig }, { token: ctx.eve.token })).status, 404);
  const wrong = await ctx.d.http.post(`/api/proposals/${p.id}/accept`, { signature: evesSig }, { token: ctx.tom.token });
  assert.is(wrong.status, 400);
  assert.is(wrong.body.error.details[0].field, "body.signature");
  const list = (await ctx.d.http.get("/api/proposals?limit=1", { token: ctx.tom.token })).body.data;
  assert.is(list.proposals.length, 1);
  assert.is(list.hasMore, list.total > 1);
  const rejected = await ctx.d.http.post(`/api/proposals/${p.id}/reject`, undefined, { token: ctx.tom.token });
  assert.is(rejected.body.data.proposal.status, "REJECTED");
  assert.is(rejected.body.data.proposal.rejectedBy, ctx.tom.address);
  const late = await ctx.d.http.post(`/api/proposals/${p.id}/accept`, { signature: await signTyped(ctx.tom.wallet, p.typedData) }, { token: ctx.tom.token });
  assert.is(late.status, 409);
});

t("a proposal not signed by both before validUntil becomes EXPIRED", async (ctx) => {
  const now = Math.floor(ctx.d.clock() / 1000);
  const p = (await ctx.d.http.post("/api/proposals", { ...base(ctx), validUntil: now + 60 }, { token: ctx.tom.token })).body.data.proposal;
  await ctx.d.http.post(`/api/proposals/${p.id}/accept`, { signature: await signTyped(ctx.tom.wallet, p.typedData) }, { token: ctx.tom.token });
  ctx.d.clock.advance(61_000);
  const r = await ctx.d.http.get(`/api/proposals/${p.id}`, { token: ctx.ivy.token });
  assert.is(r.body.data.proposal.status, "EXPIRED");
  const accept = await ctx.d.http.post(`/api/proposals/${p.id}/accept`, { signature: await signTyped(ctx.ivy.wallet, p.typedData) }, { token: ctx.ivy.token });
  assert.is(accept.status, 409);
});

t("both signatures deploy the vault; its exchange account then backs no second vault", async (ctx) => {
  const vault = await createVault(ctx.d, ctx.ivy, ctx.tom);
  const [row] = await rows(ctx.d.daemon.store, sql<any>`select * from vaults where address = ${vault}`);
  assert.is(row.investor, ctx.ivy.address);
  assert.is(row.trader, ctx.tom.address);
  assert.is(row.initial_balance, "10000000000");
  const again = await ctx.d.http.post("/api/proposals", base(ctx), { token: ctx.tom.token });
  assert.is(again.status, 400);
  assert.is(again.body.error.details[0].field, "body.exchangeAccount");
});

t.run();
