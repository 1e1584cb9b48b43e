// VaultFactory: deployment wiring, vault creation from two EIP-712 signatures (and every way that
// can fail), deterministic addresses, the operator role.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { ContractFactory, Wallet, ZeroAddress } from "ethers";
import { loadArtifact } from "../../daemon/chain/artifacts.js";
import { toAppError } from "../../daemon/chain/chain-errors.js";
import {
  closeVault, contractAt, createVault, readFactory, readVaultState, setOperator, updateBalances,
} from "../../daemon/chain/contracts.js";
import { buildVaultTermsTypedData, ethersTypedDataArgs, hashVaultTerms, predictVaultAddress } from "../../daemon/chain/terms.js";
import type { VaultTerms } from "../../daemon/chain/terms.js";
import { USDC, freshChainPerTest, makeTerms, newVault, now, rejects, setNextTimestamp, signTerms } from "./fixture.js";
import type { Chain } from "./fixture.js";

let chain: Chain;
freshChainPerTest(test, (c) => (chain = c));

async function signed(terms: VaultTerms, investor = chain.investor, trader = chain.trader) {
  return {
    factory: chain.factory,
    terms,
    investorSignature: await signTerms(chain, terms, investor),
    traderSignature: await signTerms(chain, terms, trader),
  };
}

test("deployVaultSystem wires implementation, factory, token and operator", async () => {
  const info = await readFactory(chain.provider, { factory: chain.factory });
  assert.equal(info, {
    factory: chain.factory, implementation: chain.implementation, settlementToken: chain.token,
    operator: chain.operator.address, chainId: chain.chainId,
  });
  const impl = contractAt("TradingVault", chain.implementation, chain.provider);
  assert.is(await impl.getFunction("factory")(), chain.factory);
  // The implementation itself is inert.
  await rejects(closeVault(chain.operator, { vault: chain.implementation }), "VaultClosed");
});

test("the factory refuses an implementation bound to another factory or a token without code", async () => {
  const deploy = async (name: "TradingVault" | "VaultFactory", args: unknown[]) => {
    const { abi, bytecode } = loadArtifact(name);
    try {
      const c = await new ContractFactory(abi, bytecode, chain.operator).deploy(...args);
      return await c.getAddress();
    } catch (e) {
      throw toAppError(e);
    }
  };
  const stray = await deploy("TradingVault", [Wallet.createRandom().address, chain.token]);
  await rejects(deploy("VaultFactory", [stray, chain.operator.address]), "InvalidImplementation");
  await rejects(deploy("TradingVault", [chain.factory, Wallet.createRandom().address]), "InvalidSettlementToken");
  await rejects(deploy("VaultFactory", [chain.implementation, ZeroAddress]), "ZeroAddress");
});

test("createVault stores the signed terms at the predicted address and emits them", async () => {
  const terms = await makeTerms(chain);
  const termsHash = hashVaultTerms({ chainId: chain.chainId, factory: chain.factory, terms });
  const predicted = predictVaultAddress({ factory: chain.factory, implementation: chain.implementation, termsHash });
  const factory = contractAt("VaultFactory", chain.factory, chain.provider);
  assert.is(await factory.getFunction("predictVaultAddress")(termsHash), predicted);
  assert.is(await factory.getFunction("hashTerms")(terms), termsHash);

  // Anyone may send it: the signatures are the authority.
  const r = await createVault(chain.stranger, await signed(terms));
  assert.equal([r.vault, r.termsHash], [predicted, termsHash]);
  assert.equal(r.terms, terms);
  assert.ok(r.gasUsed < 2_000_000n, `creation used ${r.gasUsed} gas`);

  const st = await readVaultState(chain.provider, { vault: r.vault });
  assert.equal(st.terms, r.terms);
  assert.is(st.termsHash, termsHash);
  assert.equal([st.balance, st.peakBalance, st.dayStartBalance], [terms.initialBalance, terms.initialBalance, terms.initialBalance]);
  assert.equal([st.paused, st.closed, st.observedAt, st.escrow], [false, false, 0, 0n]);
  const vault = contractAt("TradingVault", r.vault, chain.operator);
  await rejects(vault.getFunction("initialize")(terms, termsHash).catch((e) => Promise.reject(toAppError(e))), "NotAuthorized");
});

test("typed data is ready for eth_signTypedData_v4", async () => {
  const [account] = (await chain.provider.send("eth_accounts", [])) as string[];
  const terms = await makeTerms(chain, { investor: account });
  const doc = buildVaultTermsTypedData({ chainId: chain.chainId, factory: chain.factory, terms });
  assert.ok(doc.types.EIP712Domain);
  assert.is(doc.primaryType, "VaultTerms");
  assert.ok(Object.values(doc.message).every((v) => typeof v === "string"));
  assert.is(doc.message.initialBalance, "10000000000");
  const viaRpc: string = await chain.provider.send("eth_signTypedData_v4", [account, JSON.stringify(doc)]);
  const r = await createVault(chain.operator, {
    factory: chain.factory, terms, investorSignature: viaRpc, traderSignature: await signTerms(chain, terms, chain.trader),
  });
  assert.is((await readVaultState(chain.provider, { vault: r.vault })).terms.investor.toLowerCase(), account.toLowerCase());
});

test("both signatures are required, each from its own party, over these exact terms", async () => {
  const terms = await makeTerms(chain);
  const ok = await signed(terms);
  let e = await rejects(createVault(chain.operator, { ...ok, investorSignature: "0x" }), "InvalidSignature", "INVALID_INPUT");
  assert.equal(e.args, [chain.investor.address]);
  e = await rejects(createVault(chain.operator, { ...ok, traderSignature: "0x" }), "InvalidSignature");
  assert.equal(e.args, [chain.trader.address]);
  e = await rejects(createVault(chain.operator, { ...ok, traderSignature: ok.investorSignature }), "InvalidSignature");
  assert.equal(e.args, [chain.trader.address]);
  const byStranger = await signed(terms, chain.stranger, chain.trader);
  e = await rejects(createVault(chain.operator, byStranger), "InvalidSignature");
  assert.equal(e.args, [chain.investor.address]);
  // Signatures over other terms (a changed balance) do not carry over.
  await rejects(createVault(chain.operator, { ...ok, terms: { ...terms, initialBalance: terms.initialBalance + 1n } }), "InvalidSignature");
  // A signature for another chain's domain is refused.
  const foreign = buildVaultTermsTypedData({ chainId: 998, factory: chain.factory, terms });
  const foreignSig = await chain.investor.signTypedData(...ethersTypedDataArgs(foreign));
  await rejects(createVault(chain.operator, { ...ok, investorSignature: foreignSig }), "InvalidSignature");
  await createVault(chain.operator, ok);
});

test("terms can make one vault only; a new salt makes another", async () => {
  const terms = await makeTerms(chain);
  const first = await createVault(chain.operator, await signed(terms));
  const e = await rejects(createVault(chain.operator, await signed(terms)), "TermsAlreadyUsed", "CONFLICT");
  assert.equal(e.args, [first.termsHash]);
  const second = await createVault(chain.operator, await signed({ ...terms, salt: `0x${"11".repeat(32)}` }));
  assert.is.not(second.vault, first.vault);
});

test("terms work until validUntil, not after; a passed deadline is refused", async () => {
  const t = await now(chain);
  const a = await makeTerms(chain, { validUntil: t + 100 });
  const b = { ...a, salt: `0x${"22".repeat(32)}` };
  await setNextTimestamp(chain, t + 100);
  await createVault(chain.operator, await signed(a));
  await setNextTimestamp(chain, t + 101);
  await rejects(createVault(chain.operator, await signed(b)), "TermsExpired", "CONFLICT");
  const late = await makeTerms(chain, { dealDeadline: t + 50, validUntil: t + 1_000 });
  await rejects(createVault(chain.operator, await signed(late)), "DealExpired", "DEAL_EXPIRED");
});

test("out-of-range terms are refused with the field named", async () => {
  const cases: [Partial<VaultTerms>, string][] = [
    [{ trader: chain.investor.address }, "trader"],
    [{ trader: ZeroAddress }, "trader"],
    [{ investor: ZeroAddress }, "investor"],
    [{ exchangeAccount: ZeroAddress }, "exchangeAccount"],
    [{ initialBalance: 0n }, "initialBalance"],
    [{ initialBalance: 2n ** 80n }, "initialBalance"],
    [{ maxDrawdownBps: 0 }, "maxDrawdownBps"],
    [{ maxDrawdownBps: 10_001 }, "maxDrawdownBps"],
    [{ dailyDrawdownBps: 0 }, "dailyDrawdownBps"],
    [{ dailyDrawdownBps: 10_001 }, "dailyDrawdownBps"],
    [{ traderShareBps: 10_001 }, "traderShareBps"],
  ];
  for (const [over, field] of cases) {
    const terms = await makeTerms(chain, over);
    // Signatures are checked after the ranges, so any signature shows the range error.
    const e = await rejects(createVault(chain.operator, { factory: chain.factory, terms, investorSignature: "0x", traderSignature: "0x" }), "InvalidTerms", "INVALID_INPUT");
    assert.equal(e.args, [field]);
  }
  const edges = await makeTerms(chain, { maxDrawdownBps: 10_000, dailyDrawdownBps: 10_000, traderShareBps: 0, initialBalance: 2n ** 80n - 1n });
  await createVault(chain.operator, await signed(edges));
});

test("the operator role can be handed over, by the operator only", async () => {
  const { vault } = await newVault(chain);
  const next = Wallet.createRandom().connect(chain.provider);
  await chain.provider.send("hardhat_setBalance", [next.address, "0x56bc75e2d63100000"]);
  await rejects(setOperator(chain.stranger, { factory: chain.factory, operator: chain.stranger.address }), "NotAuthorized");
  await rejects(setOperator(chain.operator, { factory: chain.factory, operator: ZeroAddress }), "ZeroAddress");
  await setOperator(chain.operator, { factory: chain.factory, operator: next.address });
  const reading = async () => [{ vault, balance: 9_000n * USDC, observedAt: await now(chain) }];
  await rejects(updateBalances(chain.operator, { factory: chain.factory, readings: await reading() }), "NotAuthorized");
  const r = await updateBalances(next, { factory: chain.factory, readings: await reading() });
  assert.is(r.applied.length, 1);
  await rejects(closeVault(chain.operator, { vault }), "NotAuthorized", "FORBIDDEN");
  await closeVault(next, { vault });
});

test.run();
