// Proposals that could never be deployed, and answers that were 500s: each is refused up front with
// 400 INVALID_INPUT; a relay the contract refuses for good marks the proposal FAILED, one that meets
// a passing fault stays PENDING for the sweep; warnings tell both parties about a thin account.
import { suite, test } from "uvu";
import * as assert from "uvu/assert";
import { join } from "node:path";
import pino from "pino";
import { openStore, type Store } from "../../daemon/db/database.js";
import { AppError } from "../../daemon/errors.js";
import { createUserNotices } from "../../daemon/notices/user-notices.js";
import { createProposalService } from "../../daemon/vaults/proposal-service.js";
import { createVault, party, signTyped, startTestDaemon, type Party, type TestDaemon } from "../helpers/daemon.js";
import { tempDir } from "../helpers/util.js";

const t = suite<{ d: TestDaemon; ivy: Party; tom: Party }>("proposal rules");
t.before(async (ctx) => {
  ctx.d = await startTestDaemon({ startOracle: false });
  ctx.ivy = await party(ctx.d, { usdc: 5_000 });
  ctx.tom = await party(ctx.d);
});
t.after(async (ctx) => {
  await ctx.d.close();
});

const base = (ctx: { d: TestDaemon; ivy: Party; tom: Party }) => ({
  investor: ctx.ivy.address, trader: ctx.tom.address, initialBalance: "1000", maxDrawdown: 10, dailyDrawdown: 5,
  dealDeadline: Math.floor(ctx.d.clock() / 1000) + 30 * 86_400, profitShare: { trader: 20, investor: 80 },
});

t("an initialBalance beyond any on-chain amount is 400, not 500", async (ctx) => {
  const r = await ctx.d.http.post("/api/proposals", { ...base(ctx), initialBalance: `1${"0".repeat(80)}` }, { token: ctx.tom.token });
  assert.is(r.status, 400, JSON.stringify(r.body));
  assert.is(r.body.error.code, "INVALID_INPUT");
  assert.is(r.body.error.details[0].field, "body.initialBalance");
});

t("terms the factory would refuse are refused up front: a zero address, a balance beyond what the contract stores", async (ctx) => {
  const zero = "0x0000000000000000000000000000000000000000";
  const r = await ctx.d.http.post("/api/proposals", { ...base(ctx), investor: zero }, { token: ctx.tom.token });
  assert.is(r.status, 400, JSON.stringify(r.body));
  assert.ok(r.body.error.details.some((d: any) => d.field === "body.investor"), JSON.stringify(r.body));
  const zeroAccount = await ctx.d.http.post("/api/proposals", { ...base(ctx), exchangeAccount: zero }, { token: ctx.tom.token });
  assert.is(zeroAccount.status, 400);
  assert.is(zeroAccount.body.error.details[0].field, "body.exchangeAccount");
  // uint80 holds 2^80 - 1 base units: 1,208,925,819,614,629,174.706175 USDC
  const atMost = await ctx.d.http.post("/api/proposals", { ...base(ctx), initialBalance: "1208925819614629174.706175" }, { token: ctx.tom.token });
  assert.is(atMost.status, 200, JSON.stringify(atMost.body));
  const over = await ctx.d.http.post("/api/proposals", { ...base(ctx), exchangeAccount: ctx.tom.address, initialBalance: "1208925819614629174.706176" }, { token: ctx.tom.token });
  assert.is(over.status, 400, JSON.stringify(over.body));
  assert.is(over.body.error.details[0].field, "body.initialBalance");
});

t("a 65-byte signature that is not valid ECDSA is 400 on every route that takes one", async (ctx) => {
  // r and s in range but s high, and v = 0x1d: the shape passes, the signature cannot be one.
  const bad = `0x${"11".repeat(32)}${"ff".repeat(32)}1d`;
  const vault = await createVault(ctx.d, ctx.ivy, ctx.tom, { initialBalance: "5000" });
  const fund = await ctx.d.http.post(`/api/vaults/${vault}/fund`, { amount: "1", deadline: Math.floor(ctx.d.clock() / 1000) + 600, signature: bad }, { token: ctx.ivy.token });
  assert.is(fund.status, 400, JSON.stringify(fund.body));
  assert.is(fund.body.error.details[0].field, "body.signature");
  const p = (await ctx.d.http.post("/api/proposals", { ...base(ctx), exchangeAccount: ctx.tom.address }, { token: ctx.tom.token })).body.data.proposal;
  const accept = await ctx.d.http.post(`/api/proposals/${p.id}/accept`, { signature: bad }, { token: ctx.tom.token });
  assert.is(accept.status, 400);
  const agent = await ctx.d.http.post("/api/agent/approve", { nonce: Date.now(), signature: bad }, { token: ctx.tom.token });
  assert.is(agent.status, 400);
});

t("terms nobody can mean are 400 naming the field: a daily limit above the maximum (equal is fine)", async (ctx) => {
  const before = (await ctx.d.http.get("/api/proposals", { token: ctx.tom.token })).body.data.total;
  const above = await ctx.d.http.post("/api/proposals", { ...base(ctx), maxDrawdown: 10, dailyDrawdown: 10.01 }, { token: ctx.tom.token });
  assert.is(above.status, 400, JSON.stringify(above.body));
  assert.equal(above.body.error.details, [{ field: "body.dailyDrawdown", message: "must be at most maxDrawdown (10 percent)" }]);
  assert.is((await ctx.d.http.get("/api/proposals", { token: ctx.tom.token })).body.data.total, before, "nothing recorded");
  const equal = await ctx.d.http.post("/api/proposals", { ...base(ctx), exchangeAccount: ctx.tom.address, maxDrawdown: 10, dailyDrawdown: 10 }, { token: ctx.tom.token });
  assert.is(equal.status, 200, JSON.stringify(equal.body));
});

t("a dealDeadline or validUntil more than 5 years ahead is 400 naming it; 5 years to the second is fine", async (ctx) => {
  const now = Math.floor(ctx.d.clock() / 1000);
  const fiveYears = now + 1827 * 86_400; // 5 years with their leap days
  const far = await ctx.d.http.post("/api/proposals", { ...base(ctx), dealDeadline: 2 ** 40 }, { token: ctx.tom.token });
  assert.is(far.status, 400, JSON.stringify(far.body));
  assert.equal(far.body.error.details.map((x: any) => x.field), ["body.dealDeadline"]);
  assert.match(far.body.error.message, /dealDeadline: must be at most 5 years ahead/);
  const over = await ctx.d.http.post("/api/proposals", { ...base(ctx), dealDeadline: fiveYears + 1 }, { token: ctx.tom.token });
  assert.equal(over.body.error?.details?.map((x: any) => x.field), ["body.dealDeadline"], JSON.stringify(over.body));
  const bothFar = await ctx.d.http.post("/api/proposals", { ...base(ctx), dealDeadline: fiveYears + 2, validUntil: fiveYears + 1 }, { token: ctx.tom.token });
  assert.equal(bothFar.body.error?.details?.map((x: any) => x.field), ["body.dealDeadline", "body.validUntil"], JSON.stringify(bothFar.body));
  const longest = await ctx.d.http.post("/api/proposals", { ...base(ctx), exchangeAccount: ctx.tom.address, dealDeadline: fiveYears, validUntil: fiveYears }, { token: ctx.tom.token });
  assert.is(longest.status, 200, JSON.stringify(longest.body));
  assert.is(longest.body.data.proposal.dealDeadline, fiveYears);
});

t("warnings: an initial balance above what the exchange account holds is flagged on create and read, before anyone signs", async (ctx) => {
  const thin = await ctx.d.http.post("/api/proposals", { ...base(ctx), exchangeAccount: ctx.tom.address, initialBalance: "9000" }, { token: ctx.tom.token });
  assert.is(thin.status, 200, JSON.stringify(thin.body));
  assert.equal(thin.body.data.warnings.map((w: any) => w.code), ["BALANCE_ABOVE_ACCOUNT"]);
  assert.match(thin.body.data.warnings[0].message, /9000/);
  assert.match(thin.body.data.warnings[0].message, /would pause at its first reading/, "9000 against an empty account is a breach at once");
  const again = await ctx.d.http.get(`/api/proposals/${thin.body.data.proposal.id}`, { token: ctx.ivy.token });
  assert.equal(again.body.data.warnings.map((w: any) => w.code), ["BALANCE_ABOVE_ACCOUNT"]);
  const rich = await party(ctx.d, { usdc: 2_000 });
  const fine = await ctx.d.http.post("/api/proposals", { ...base(ctx), investor: rich.address, initialBalance: "1000" }, { token: ctx.tom.token });
  assert.is(fine.status, 200, JSON.stringify(fine.body));
  assert.equal(fine.body.data.warnings, [], "the account holds more: no warning");
});

t("both signed: the proposal can no longer be rejected", async (ctx) => {
  const other = await party(ctx.d, { usdc: 1_000 });
  const r = await ctx.d.http.post("/api/proposals", { ...base(ctx), investor: other.address, initialBalance: "1000" }, { token: ctx.tom.token });
  const p = r.body.data.proposal;
  await ctx.d.http.post(`/api/proposals/${p.id}/accept`, { signature: await signTyped(ctx.tom.wallet, p.typedData) }, { token: ctx.tom.token });
  await ctx.d.http.post(`/api/proposals/${p.id}/accept`, { signature: await signTyped(other.wallet, p.typedData) }, { token: other.token });
  const reject = await ctx.d.http.post(`/api/proposals/${p.id}/reject`, undefined, { token: other.token });
  assert.is(reject.status, 409);
});

t.run();

// The relay's outcome by the class of its error, over the service itself with a real store.
async function relayWith(error: AppError): Promise<{ status: string; relayError: string | null; store: Store; remove(): void }> {
  const dir = tempDir();
  const store = await openStore(join(dir.path, "p.db"));
  const svc = createProposalService({
    db: store.db, work: store, notices: createUserNotices({ db: store.db, clock: Date.now }), clock: Date.now, log: pino({ level: "silent" }), exclusive: store.exclusive,
    chainId: () => 31337, factory: () => "0x5FbDB2315678afecb367f032d93F642f64180aa3",
    activeVaultFor: async () => undefined, accountValue: async () => "1000000", firstReading: async () => undefined,
    assertAccountValued: async () => undefined,
    createVault: async () => {
      throw error;
    },
  });
  const { Wallet } = await import("ethers");
  const [investor, trader] = [Wallet.createRandom(), Wallet.createRandom()];
  const now = Math.floor(Date.now() / 1000);
  const row = await svc.create(trader.address, {
    investor: investor.address, trader: trader.address, initialBalance: 1_000_000_000n, maxDrawdownBps: 1000,
    dailyDrawdownBps: 500, dealDeadline: now + 86_400, traderShareBps: 2000, breachPolicy: 0,
  });
  const td = (await import("../../daemon/vaults/proposal-service.js")).typedDataOf(row);
  const sign = (w: typeof investor) => signTyped(w, td as any);
  await svc.accept(trader.address, row.id, await sign(trader));
  const after = await svc.accept(investor.address, row.id, await sign(investor));
  return { status: after.status, relayError: after.relay_error, store, remove: dir.remove };
}

test("a relay the contract refuses for good marks the proposal FAILED with the reason", async () => {
  const r = await relayWith(new AppError("INVALID_INPUT", "createVault: TermsInvalid()"));
  try {
    assert.is(r.status, "FAILED");
    assert.match(r.relayError ?? "", /TermsInvalid/);
  } finally {
    await r.store.close();
    r.remove();
  }
});

test("a relay that meets a passing chain fault stays PENDING, for the sweep to try again", async () => {
  const r = await relayWith(new AppError("CHAIN_UNAVAILABLE", "createVault failed: TIMEOUT", { retryable: true }));
  try {
    assert.is(r.status, "PENDING");
    assert.match(r.relayError ?? "", /TIMEOUT/);
  } finally {
    await r.store.close();
    r.remove();
  }
});

test.run();
