// The factory's bounds on every term, against termsProblems (daemon/chain/terms.ts), which the
// proposal service runs up front: at each bound the last value termsProblems accepts deploys, and the
// next one out is refused by both, by the contract with its exact custom error.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { ZeroAddress } from "ethers";
import { createVault } from "../../daemon/chain/contracts.js";
import { MAX_INITIAL_BALANCE, MAX_TERMS_TIME, termsProblems } from "../../daemon/chain/terms.js";
import type { VaultTerms } from "../../daemon/chain/terms.js";
import { BREACH_POLICY_TABLE } from "../../daemon/vaults/breach-policies.js";
import { DAY, freshChainPerTest, makeTerms, now, rejects, setNextTimestamp, signTerms } from "./fixture.js";
import type { Chain } from "./fixture.js";

let chain: Chain;
freshChainPerTest(test, (c) => (chain = c));

/** Terms for a createVault mined at `at`, with `over(at)` applied. */
type Over = (at: number) => Partial<VaultTerms>;

async function attempt(over: Over) {
  const at = (await now(chain)) + 10;
  const terms = await makeTerms(chain, { dealDeadline: at + 30 * DAY, validUntil: at + DAY, ...over(at) });
  await setNextTimestamp(chain, at);
  const sent = createVault(chain.operator, {
    factory: chain.factory, terms,
    investorSignature: await signTerms(chain, terms, chain.investor),
    traderSignature: await signTerms(chain, terms, chain.trader),
  });
  sent.catch(() => {}); // handled by the caller; keeps a failed assertion before it from crashing Node
  return { problems: termsProblems(terms, at).map((p) => p.field), sent };
}

async function deploys(over: Over) {
  const { problems, sent } = await attempt(over);
  assert.equal(problems, [], "termsProblems accepts it");
  // An AppError (its `details` an object) escaping a test breaks uvu's failure report: say it plainly.
  await sent.catch((e: Error) => assert.unreachable(`the contract refused it: ${e.message}`));
}

async function refused(over: Over, field: string, revert: string, arg?: string) {
  const { problems, sent } = await attempt(over);
  assert.equal(problems, [field], "termsProblems names the field");
  const e = await rejects(sent, revert);
  if (arg) assert.equal(e.args, [arg]);
}

test("investor and trader: set and different", async () => {
  await refused(() => ({ investor: ZeroAddress }), "investor", "InvalidTerms", "investor");
  await refused(() => ({ trader: ZeroAddress }), "trader", "InvalidTerms", "trader");
  await refused(() => ({ trader: chain.investor.address }), "trader", "InvalidTerms", "trader");
});

test("exchange account: set; the investor's own address is fine", async () => {
  await refused(() => ({ exchangeAccount: ZeroAddress }), "exchangeAccount", "InvalidTerms", "exchangeAccount");
  await deploys(() => ({ exchangeAccount: chain.investor.address }));
});

test("initialBalance: 1 base unit up to 2^80 - 1", async () => {
  await deploys(() => ({ initialBalance: 1n }));
  await refused(() => ({ initialBalance: 0n }), "initialBalance", "InvalidTerms", "initialBalance");
  await deploys(() => ({ initialBalance: MAX_INITIAL_BALANCE }));
  await refused(() => ({ initialBalance: MAX_INITIAL_BALANCE + 1n }), "initialBalance", "InvalidTerms", "initialBalance");
});

test("both limits: 1 to 10000 bps", async () => {
  for (const [term, field] of [["maxDrawdownBps", "maxDrawdown"], ["dailyDrawdownBps", "dailyDrawdown"]] as const) {
    await deploys(() => ({ [term]: 1 }));
    await refused(() => ({ [term]: 0 }), field, "InvalidTerms", term);
    await deploys(() => ({ [term]: 10_000 }));
    await refused(() => ({ [term]: 10_001 }), field, "InvalidTerms", term);
  }
});

test("trader share: 0 to 10000 bps", async () => {
  await deploys(() => ({ traderShareBps: 0 }));
  await deploys(() => ({ traderShareBps: 10_000 }));
  await refused(() => ({ traderShareBps: 10_001 }), "traderShare", "InvalidTerms", "traderShareBps");
});

test("breach policy: every code of the policy table deploys, the next one is refused", async () => {
  for (const p of BREACH_POLICY_TABLE) await deploys(() => ({ breachPolicy: p.code }));
  await refused(() => ({ breachPolicy: BREACH_POLICY_TABLE.length }), "breachPolicy", "InvalidTerms", "breachPolicy");
});

test("dealDeadline: after the block, up to 2^48 - 1", async () => {
  await deploys((at) => ({ dealDeadline: at + 1 }));
  await refused((at) => ({ dealDeadline: at }), "dealDeadline", "DealExpired");
  await deploys(() => ({ dealDeadline: MAX_TERMS_TIME }));
  await refused(() => ({ dealDeadline: MAX_TERMS_TIME + 1 }), "dealDeadline", "InvalidTerms", "dealDeadline");
});

test("validUntil: not before the block, up to 2^48 - 1", async () => {
  await deploys((at) => ({ validUntil: at }));
  await refused((at) => ({ validUntil: at - 1 }), "validUntil", "TermsExpired");
  await deploys(() => ({ validUntil: MAX_TERMS_TIME }));
  await refused(() => ({ validUntil: MAX_TERMS_TIME + 1 }), "validUntil", "InvalidTerms", "validUntil");
});

test("termsProblems lists every problem, with a message, and refuses what cannot even be encoded", async () => {
  const terms = await makeTerms(chain);
  const at = await now(chain);
  const bad = termsProblems({
    ...terms, investor: "0x12", trader: ZeroAddress, exchangeAccount: "not an address", initialBalance: -1n,
    maxDrawdownBps: 12.5, dailyDrawdownBps: 65_536, traderShareBps: -1, dealDeadline: Number.NaN, validUntil: 2 ** 64,
  }, at);
  assert.equal(bad.map((p) => p.field), [
    "investor", "trader", "exchangeAccount", "initialBalance", "maxDrawdown", "dailyDrawdown", "traderShare", "dealDeadline", "validUntil",
  ]);
  assert.ok(bad.every((p) => p.message.length > 0));
  assert.match(bad.find((p) => p.field === "initialBalance")!.message, "1208925819614629174.706175 USDC");
  // Addresses in any case are the same party.
  const same = termsProblems({ ...terms, trader: terms.investor.toLowerCase() }, at);
  assert.equal(same, [{ field: "trader", message: "must differ from the investor" }]);
});

test.run();
