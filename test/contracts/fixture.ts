// Shared set-up of the contract tests: an in-process Hardhat network, funded wallets, the contracts
// deployed through daemon/chain/contracts.ts (the daemon's own code), snapshots, time travel, and
// assertions on decoded reverts.
import { createRequire } from "node:module";
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Test } from "uvu";
import * as assert from "uvu/assert";
import { BrowserProvider, Wallet, toBeHex } from "ethers";
import type { HardhatRuntimeEnvironment } from "hardhat/types/index.js";
import { packageRoot } from "../../daemon/lib/package-root.js";
import { isAppError } from "../../daemon/errors.js";
import { CONTRACT_NAMES, artifactPath } from "../../daemon/chain/artifacts.js";
import { createVault, deploySettlementToken, deployVaultSystem, mintSettlementToken } from "../../daemon/chain/contracts.js";
import type { CreateVaultResult } from "../../daemon/chain/contracts.js";
import { buildVaultTermsTypedData, ethersTypedDataArgs, randomSalt } from "../../daemon/chain/terms.js";
import type { VaultTerms } from "../../daemon/chain/terms.js";

export const USDC = 1_000_000n; // one USDC in base units
export const DAY = 86_400;

export interface Chain {
  hre: HardhatRuntimeEnvironment;
  provider: BrowserProvider;
  chainId: bigint;
  operator: Wallet;
  investor: Wallet;
  trader: Wallet;
  stranger: Wallet;
  token: string;
  factory: string;
  implementation: string;
  /** Gas of deploying implementation + factory. */
  deployGas: bigint;
}

function newestSourceMtime(dir: string): number {
  let newest = 0;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const st = statSync(path);
    newest = Math.max(newest, st.isDirectory() ? newestSourceMtime(path) : name.endsWith(".sol") ? st.mtimeMs : 0);
  }
  return newest;
}

/** Stamp written after a compile: Hardhat skips rewriting artifacts whose sources only changed
 * mtime (a checkout, a touch), so the artifacts alone cannot prove they are current. */
const stampPath = (root: string) => join(root, "cache", "contracts-test-compiled.stamp");

function artifactsFresh(root: string): boolean {
  if (!CONTRACT_NAMES.every((n) => existsSync(artifactPath(n, root)))) return false;
  const newest = newestSourceMtime(join(root, "contracts"));
  const stamp = statSync(stampPath(root), { throwIfNoEntry: false })?.mtimeMs ?? 0;
  return stamp >= newest || CONTRACT_NAMES.every((n) => statSync(artifactPath(n, root)).mtimeMs >= newest);
}

/** Compiles when an artifact is missing or older than the sources; a lock folder keeps two test
 * processes (npm test runs two at a time) from compiling into the same folder at once. */
async function ensureCompiled(hre: HardhatRuntimeEnvironment, root: string): Promise<void> {
  if (artifactsFresh(root)) return;
  const lock = join(root, "cache", "contracts-test-compile.lock");
  mkdirSync(join(root, "cache"), { recursive: true });
  for (const started = Date.now(); ; ) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      // A lock older than 3 minutes belongs to a process that died mid-compile.
      const age = Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > 180_000) rmSync(lock, { recursive: true, force: true });
      if (Date.now() - started > 300_000) throw new Error("timed out waiting for the compile lock");
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  try {
    if (!artifactsFresh(root)) {
      await hre.run("compile", { quiet: true });
      writeFileSync(stampPath(root), new Date().toISOString());
    }
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

async function fundedWallet(provider: BrowserProvider): Promise<Wallet> {
  const wallet = Wallet.createRandom().connect(provider) as unknown as Wallet;
  await provider.send("hardhat_setBalance", [wallet.address, toBeHex(10n ** 21n)]);
  return wallet;
}

/** Loads Hardhat in-process (config from the package root) with fresh artifacts. */
export async function loadHardhat(): Promise<HardhatRuntimeEnvironment> {
  const root = packageRoot();
  process.chdir(root); // Hardhat finds hardhat.config.cjs from the working directory
  const hre = createRequire(import.meta.url)("hardhat") as HardhatRuntimeEnvironment;
  await ensureCompiled(hre, root);
  return hre;
}

/** Starts the in-process chain and deploys token + implementation + factory as the daemon does. */
export async function setupChain(): Promise<Chain> {
  const hre = await loadHardhat();
  const provider = new BrowserProvider(hre.network.provider, undefined, { cacheTimeout: -1 });
  const [operator, investor, trader, stranger] = [
    await fundedWallet(provider), await fundedWallet(provider), await fundedWallet(provider), await fundedWallet(provider),
  ];
  const token = await deploySettlementToken(operator);
  const system = await deployVaultSystem(operator, { settlementToken: token.address, operator: operator.address });
  await mintSettlementToken(operator, { token: token.address, to: investor.address, amount: 1_000_000n * USDC });
  const { chainId } = await provider.getNetwork();
  return {
    hre, provider, chainId, operator, investor, trader, stranger,
    token: token.address, factory: system.factory, implementation: system.implementation, deployGas: system.gasUsed,
  };
}

export async function snapshot(chain: Chain): Promise<string> {
  return chain.provider.send("evm_snapshot", []);
}

export async function revertTo(chain: Chain, id: string): Promise<void> {
  assert.ok(await chain.provider.send("evm_revert", [id]), "evm_revert failed");
}

export async function now(chain: Chain): Promise<number> {
  return (await chain.provider.getBlock("latest"))!.timestamp;
}

/** The next mined block (the next transaction, with automine) gets timestamp `t`. */
export async function setNextTimestamp(chain: Chain, t: number): Promise<void> {
  await chain.provider.send("evm_setNextBlockTimestamp", [t]);
}

export async function mineAt(chain: Chain, t: number): Promise<void> {
  await setNextTimestamp(chain, t);
  await chain.provider.send("evm_mine", []);
}

export async function makeTerms(chain: Chain, over: Partial<VaultTerms> = {}): Promise<VaultTerms> {
  const t = await now(chain);
  return {
    investor: chain.investor.address,
    trader: chain.trader.address,
    exchangeAccount: Wallet.createRandom().address,
    initialBalance: 10_000n * USDC,
    maxDrawdownBps: 2_000,
    dailyDrawdownBps: 500,
    dealDeadline: t + 30 * DAY,
    traderShareBps: 2_000,
    breachPolicy: 0,
    validUntil: t + DAY,
    salt: randomSalt(),
    ...over,
  };
}

export async function signTerms(chain: Chain, terms: VaultTerms, signer: Wallet): Promise<string> {
  const doc = buildVaultTermsTypedData({ chainId: chain.chainId, factory: chain.factory, terms });
  return signer.signTypedData(...ethersTypedDataArgs(doc));
}

/** Terms signed by both parties and created by the operator (the daemon's relay). */
export async function newVault(chain: Chain, over: Partial<VaultTerms> = {}): Promise<CreateVaultResult> {
  const terms = await makeTerms(chain, over);
  return createVault(chain.operator, {
    factory: chain.factory,
    terms,
    investorSignature: await signTerms(chain, terms, chain.investor),
    traderSignature: await signTerms(chain, terms, chain.trader),
  });
}

/** Asserts that `promise` fails with an AppError carrying the contract error `name` (and `code`). */
export async function rejects(promise: Promise<unknown>, name: string, code?: string): Promise<{ args: unknown[] }> {
  try {
    await promise;
  } catch (e) {
    if (!isAppError(e)) throw e;
    const details = e.details as { revert?: string; args?: unknown[] } | undefined;
    assert.is(details?.revert, name, `expected revert ${name}, got ${details?.revert ?? e.message}`);
    if (code) assert.is(e.code, code);
    return { args: details?.args ?? [] };
  }
  assert.unreachable(`expected revert ${name}`);
  throw new Error("unreachable");
}

/**
 * Sets the chain up once for the suite `t` and gives every test the chain as it was after set-up
 * (an EVM snapshot, reverted to before each test). `use` receives the chain when it is ready.
 */
export function freshChainPerTest(t: Test, use: (chain: Chain) => void): void {
  let chain: Chain;
  let snap: string;
  t.before(async () => {
    chain = await setupChain();
    use(chain);
    snap = await snapshot(chain);
  });
  t.before.each(async () => {
    await revertTo(chain, snap);
    snap = await snapshot(chain);
  });
}
