// Withdraw against a malicious settlement token that calls back into withdraw while the vault is
// paying out: the guard must stop the nested call and the party must be paid exactly once.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { ContractFactory, id } from "ethers";
import type { Contract } from "ethers";
import { loadArtifact } from "../../daemon/chain/artifacts.js";
import {
  closeVault, contractAt, createVault, deployVaultSystem, fundVault, readVaultState, updateBalances, withdrawFromVault,
} from "../../daemon/chain/contracts.js";
import { USDC, makeTerms, now, setupChain, signTerms } from "./fixture.js";
import type { Chain } from "./fixture.js";

const GUARD_ERROR = id("ReentrancyGuardReentrantCall()").slice(0, 10);

let chain: Chain;
let token: Contract;
let vault: string;

test.before(async () => {
  const base = await setupChain();
  const { abi, bytecode } = loadArtifact("ReentrantToken");
  const deployed = await new ContractFactory(abi, bytecode, base.operator).deploy();
  await deployed.waitForDeployment();
  const tokenAddress = await deployed.getAddress();
  token = contractAt("ReentrantToken", tokenAddress, base.operator);
  const system = await deployVaultSystem(base.operator, { settlementToken: tokenAddress, operator: base.operator.address });
  chain = { ...base, factory: system.factory, implementation: system.implementation, token: tokenAddress };

  const terms = await makeTerms(chain, { traderShareBps: 5_000 });
  ({ vault } = await createVault(chain.operator, {
    factory: chain.factory,
    terms,
    investorSignature: await signTerms(chain, terms, chain.investor),
    traderSignature: await signTerms(chain, terms, chain.trader),
  }));
  await (await token.getFunction("mint")(chain.investor.address, 1_000n * USDC)).wait();
  await fundVault(chain.investor, { vault, amount: 1_000n * USDC });
  await updateBalances(chain.operator, {
    factory: chain.factory, readings: [{ vault, balance: 10_400n * USDC, observedAt: await now(chain) }],
  });
  await closeVault(chain.investor, { vault }); // profit 400, trader's share 200
});

async function arm(party: string) {
  await (await token.getFunction("arm")(vault, party)).wait();
}

const tokenBalance = async (account: string): Promise<bigint> => token.getFunction("balanceOf")(account);

test("a re-entered withdraw by the trader is refused and the trader is paid once", async () => {
  await arm(chain.trader.address);
  const r = await withdrawFromVault(chain.trader, { vault, party: chain.trader.address });
  assert.is(r.amount, 200n * USDC);
  assert.is(await token.getFunction("attempts")(), 1n, "the token did call back");
  assert.is(await token.getFunction("reentrySucceeded")(), false);
  assert.is(await token.getFunction("lastError")(), GUARD_ERROR);
  assert.is(await tokenBalance(chain.trader.address), 200n * USDC);
  const st = await readVaultState(chain.provider, { vault });
  assert.equal([st.escrow, st.traderPaid, st.traderWithdrawable], [800n * USDC, 200n * USDC, 0n]);
});

test("the same holds for the investor, and nothing is left afterwards", async () => {
  await arm(chain.investor.address);
  const r = await withdrawFromVault(chain.investor, { vault, party: chain.investor.address });
  assert.is(r.amount, 800n * USDC);
  assert.is(await token.getFunction("attempts")(), 2n);
  assert.is(await token.getFunction("reentrySucceeded")(), false);
  assert.is(await token.getFunction("lastError")(), GUARD_ERROR);
  assert.is(await tokenBalance(chain.investor.address), 800n * USDC);
  assert.is((await readVaultState(chain.provider, { vault })).escrow, 0n);
});

test.run();
