// The end of a vault through the HTTP API, checked against the contract: close (by either party,
// once), the profit split, the frozen state after it, funding by permit and each party's withdrawal.
// Each test builds and closes its own vault.
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { signTyped, simHolds, simMark, simOrders, type TestDaemon } from "../helpers/daemon.js";
import { waitUntil } from "../helpers/util.js";
import {
  assertEvents, chainVaultState, closeWithProfit, listedVault, longBtc, setPrice, startVaultDaemon, stranger, tokenBalance, vaultCase, vaultDetail, vaultEventTypes, vaultPost, vaultTrade,
  type VaultCase,
} from "../helpers/vaults.js";

const t = suite<{ d: TestDaemon }>("vault close");
t.before(async (ctx) => {
  ctx.d = await startVaultDaemon({ staleAfter: 5, oracleInterval: 1 });
});
t.after.each((ctx) => {
  ctx.d.daemon.sim!.faults.clear();
});
t.after(async (ctx) => {
  await ctx.d.close();
});

const usdc = (x: bigint) => Number(x) / 1e6;

/** The investor funds the vault's escrow with a permit for `amount` (decimal USDC). */
async function fund(c: VaultCase, amount: string) {
  const prep = await vaultPost(c, "fund/prepare", c.ivy, { amount });
  assert.is(prep.status, 200, JSON.stringify(prep.body));
  const { typedData, deadline } = prep.body.data;
  return vaultPost(c, "fund", c.ivy, { amount, deadline, signature: await signTyped(c.ivy.wallet, typedData) });
}

t("close: stranger 404; the investor closes; the result is the contract's split", async ({ d }) => {
  const c = await vaultCase(d);
  const eve = await stranger(d);
  assert.is((await vaultPost(c, "close", eve)).status, 404);
  assert.is((await listedVault(c, c.tom)).status, "ACTIVE", "read (and cached) before the close");
  const closed = await closeWithProfit(c);
  assert.equal(Object.keys(closed).sort(), ["address", "escrow", "finalBalance", "investorShare", "leftOpen", "profit", "status", "traderShare"]);
  assert.equal(closed.leftOpen, [], "nothing left open: the position closed");
  assert.is(closed.status, "CLOSED");
  assert.is((await listedVault(c, c.tom)).status, "CLOSED");
  const s = await chainVaultState(c);
  assert.ok(s.closed);
  assert.is(closed.finalBalance, usdc(s.finalBalance).toString());
  assert.is(closed.profit, usdc(s.profit));
  assert.is(closed.traderShare, usdc(s.traderShare));
  assert.is(closed.investorShare, usdc(s.investorShare));
  assert.ok(s.profit > 0n, "BTC went from 60000 to 66000");
  assert.is(s.traderShare, (s.profit * 2000n) / 10000n, "20% of the profit, rounded down");
  const share = usdc(s.traderShare).toString();
  assert.equal(closed.escrow, { held: "0", owedToTrader: share, toFund: share }, "nothing funded yet: the investor owes the whole share");
  await assertEvents(c, ["Closed"]);
});

t("a closed vault is flat and frozen: trades and a second close answer VAULT_CLOSED", async ({ d }) => {
  const c = await vaultCase(d);
  await closeWithProfit(c);
  assert.equal((await vaultDetail(c)).positions, [], "positions were flattened");
  assert.is((await vaultTrade(c, c.tom, { size: 0.01 })).body.error.code, "VAULT_CLOSED");
  assert.is((await vaultPost(c, "close", c.tom)).body.error.code, "VAULT_CLOSED");
});

t("both parties close at once: closed once; the loser gets 409 VAULT_CLOSED and trades nothing", async ({ d }) => {
  const c = await vaultCase(d);
  await longBtc(c);
  // Park the investor's close where it has read the position and not yet flattened it (the sim holds
  // every read's answer a while), then send the trader's close: both are past any "is it open" check.
  const mark = simMark(d);
  d.daemon.sim!.faults.next({ kind: "delay", endpoint: "info", delayMs: 400, count: 50 });
  const first = vaultPost(c, "close", c.ivy);
  const ivyPositions = (b: any) => b?.type === "clearinghouseState" && String(b.user).toLowerCase() === c.ivy.address.toLowerCase();
  await waitUntil(() => simHolds(d, mark, ivyPositions), { what: "the investor's close reading the position" });
  const second = await vaultPost(c, "close", c.tom);
  const replies = [await first, second];
  const won = replies.filter((r) => r.status === 200);
  const lost = replies.filter((r) => r.status !== 200);
  assert.is(won.length, 1, JSON.stringify(replies.map((r) => [r.status, r.body])));
  assert.is(lost[0]!.status, 409, JSON.stringify(lost[0]!.body));
  assert.is(lost[0]!.body.error.code, "VAULT_CLOSED");
  assert.is(won[0]!.body.data.vault.finalBalance, usdc((await chainVaultState(c)).finalBalance).toString());
  assert.is((await vaultEventTypes(c)).filter((x) => x === "Closed").length, 1);
  assert.is(simOrders(d, mark).length, 1, "one order flattened the position; the loser sent none");
});

t("fund by permit: trader 403, stranger 404; the investor's permit moves the amount on-chain", async ({ d }) => {
  const c = await vaultCase(d);
  const eve = await stranger(d);
  await closeWithProfit(c);
  assert.is((await vaultPost(c, "fund/prepare", c.tom, { amount: "500" })).status, 403);
  assert.is((await vaultPost(c, "fund/prepare", eve, { amount: "500" })).status, 404);
  const prep = (await vaultPost(c, "fund/prepare", c.ivy, { amount: "500" })).body.data;
  assert.is(prep.typedData.primaryType, "Permit");
  assert.is(prep.typedData.message.spender, c.vault);
  const ivyBefore = await tokenBalance(c, c.ivy.address);
  const funded = await fund(c, "500");
  assert.is(funded.status, 200, JSON.stringify(funded.body));
  assert.match(funded.body.data.txHash, /^0x[0-9a-f]{64}$/);
  assert.is(await tokenBalance(c, c.vault), 500_000_000n);
  assert.is(await tokenBalance(c, c.ivy.address), ivyBefore - 500_000_000n);
  await assertEvents(c, ["Funded"]);
});

t("withdraw: before funding the trader is told what is owed and who funds it; then each party to its own address, stranger 404, nothing twice", async ({ d }) => {
  const c = await vaultCase(d);
  const eve = await stranger(d);
  await closeWithProfit(c);
  const owed = usdc((await chainVaultState(c)).traderShare).toString();
  const refused = await vaultPost(c, "withdraw", c.tom);
  assert.is(refused.status, 409);
  const early = refused.body.error;
  assert.is(early.code, "ESCROW_NOT_FUNDED");
  assert.equal(early.details, { owed, escrow: "0", investor: c.ivy.address, next: [{ action: "fundVault", vault: c.vault, amount: owed }] });
  assert.match(early.message, `the trader is owed ${owed} USDC but the escrow holds 0: the investor (${c.ivy.address}) has not funded it yet`);
  assert.match(early.message, `For the investor to fund the escrow: POST /api/vaults/${c.vault}/fund/prepare with amount ${owed}`);
  const nothing = (await vaultPost(c, "withdraw", c.ivy)).body.error;
  assert.is(nothing.code, "NOTHING_TO_WITHDRAW", "the investor is owed nothing from an empty escrow");
  // In words, with the contract's revert name kept in details.
  assert.match(nothing.message, /nothing left for this party to withdraw/);
  assert.is(nothing.details.revert, "NothingToWithdraw");
  const ivyBefore = await tokenBalance(c, c.ivy.address);
  assert.is((await fund(c, "500")).status, 200);
  const s = await chainVaultState(c);
  assert.is((await vaultPost(c, "withdraw", eve)).status, 404);
  const tw = await vaultPost(c, "withdraw", c.tom);
  assert.is(tw.status, 200, JSON.stringify(tw.body));
  assert.equal([tw.body.data.recipient, tw.body.data.amount], [c.tom.address, usdc(s.traderShare).toString()]);
  assert.is(await tokenBalance(c, c.tom.address), s.traderShare);
  const iw = await vaultPost(c, "withdraw", c.ivy);
  assert.is(iw.body.data.recipient, c.ivy.address);
  assert.is(await tokenBalance(c, c.vault), 0n);
  assert.is(await tokenBalance(c, c.ivy.address), ivyBefore - s.traderShare);
  assert.is((await vaultPost(c, "withdraw", c.tom)).body.error.code, "NOTHING_TO_WITHDRAW");
  await assertEvents(c, ["Withdrawn"]);
});

t("an escrow funded short pays the trader what it holds; the rest is still owed, and said so", async ({ d }) => {
  const c = await vaultCase(d);
  await closeWithProfit(c);
  const share = (await chainVaultState(c)).traderShare;
  assert.is((await fund(c, "10")).status, 200);
  const paid = await vaultPost(c, "withdraw", c.tom);
  assert.is(paid.status, 200, JSON.stringify(paid.body));
  assert.is(paid.body.data.amount, "10");
  const left = usdc(share - 10_000_000n).toString();
  const again = (await vaultPost(c, "withdraw", c.tom)).body.error;
  assert.equal([again.code, again.details],
    ["ESCROW_NOT_FUNDED", { owed: left, escrow: "0", investor: c.ivy.address, next: [{ action: "fundVault", vault: c.vault, amount: left }] }]);
});

t("a vault closed at a loss owes the trader nothing: no funding asked, and withdraw is NOTHING_TO_WITHDRAW", async ({ d }) => {
  const c = await vaultCase(d);
  await longBtc(c);
  setPrice(d, "BTC", "59000");
  const closed = await vaultPost(c, "close", c.tom);
  assert.is(closed.status, 200, JSON.stringify(closed.body));
  assert.equal(closed.body.data.vault.escrow, { held: "0", owedToTrader: "0", toFund: "0" });
  assert.is((await vaultPost(c, "withdraw", c.tom)).body.error.code, "NOTHING_TO_WITHDRAW");
});

t.run();
