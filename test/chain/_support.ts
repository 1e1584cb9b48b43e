// Shared set-up of the chain module tests: a data directory and store, the embedded chain started
// through the daemon's own facade on a free loopback port, two parties with real wallets that sign
// terms and permits, and helpers that drive vaults through the operator's one sending path.
import { join } from "node:path";
import { Wallet } from "ethers";
import pino from "pino";
import { startChain } from "../../daemon/chain/chain.js";
import type { ChainEventSink } from "../../daemon/chain/indexer.js";
import { knownVaults } from "../../daemon/db/vaults-repo.js";
import { applyChainEvents } from "../../daemon/vaults/vault-events.js";
import type { Chain, StartChainOptions } from "../../daemon/chain/chain.js";
import {
  createVault, fundVaultWithPermit, mintSettlementToken, randomSalt, vaultPermitTypedData,
} from "../../daemon/chain/contracts.js";
import type { CreateVaultResult, VaultTerms } from "../../daemon/chain/contracts.js";
import { loadOrCreateOperatorKey } from "../../daemon/chain/operator-key.js";
import { buildVaultTermsTypedData, ethersTypedDataArgs } from "../../daemon/chain/terms.js";
import { openStore } from "../../daemon/db/database.js";
import type { Store } from "../../daemon/db/database.js";
import { loadHardhat } from "../contracts/fixture.js";
import { freePort, tempDir } from "../helpers/util.js";

export const USDC = 1_000_000n;
export const DAY = 86_400;
export const silent = pino({ level: "silent" });

/** Makes sure the contracts are compiled (the contract tests' lock-protected compile). */
export async function ensureArtifacts(): Promise<void> {
  await loadHardhat();
}

export interface Env {
  dir: string;
  store: Store;
  operatorKey: string;
  investor: Wallet;
  trader: Wallet;
  remove(): Promise<void>;
}

export async function newEnv(): Promise<Env> {
  const tmp = tempDir("tradevault-chain-");
  const store = await openStore(join(tmp.path, "db.sqlite"));
  const operatorKey = loadOrCreateOperatorKey(join(tmp.path, "keys", "operator.key")).privateKey;
  const env: Env = {
    dir: tmp.path, store, operatorKey,
    investor: Wallet.createRandom() as unknown as Wallet,
    trader: Wallet.createRandom() as unknown as Wallet,
    async remove() {
      await env.store.close();
      tmp.remove();
    },
  };
  return env;
}

export async function reopenStore(env: Env): Promise<void> {
  await env.store.close();
  env.store = await openStore(join(env.dir, "db.sqlite"));
}

/** The projection the daemon wires into the chain module: vault rows and events from decoded logs. */
export const vaultSink = (store: Store): ChainEventSink => ({
  knownVaults: (addresses) => knownVaults(store.db, addresses),
  apply: applyChainEvents,
});

export async function start(env: Env, over: Partial<StartChainOptions> = {}): Promise<Chain> {
  return startChain({
    dataDir: env.dir, store: env.store, sink: vaultSink(env.store), log: silent, operatorKey: env.operatorKey,
    embedded: { port: await freePort() }, ...over,
  });
}

export async function chainNow(chain: Chain): Promise<number> {
  return (await chain.provider.getBlock("latest"))!.timestamp;
}

export async function signedTerms(chain: Chain, env: Env, over: Partial<VaultTerms> = {}) {
  const t = await chainNow(chain);
  const terms: VaultTerms = {
    investor: env.investor.address, trader: env.trader.address, exchangeAccount: Wallet.createRandom().address,
    initialBalance: 10_000n * USDC, maxDrawdownBps: 2_000, dailyDrawdownBps: 1_000, dealDeadline: t + 30 * DAY,
    traderShareBps: 2_000, breachPolicy: 0, validUntil: t + DAY, salt: randomSalt(), ...over,
  };
  const doc = buildVaultTermsTypedData({ chainId: chain.chainId, factory: chain.addresses.factory, terms });
  return {
    factory: chain.addresses.factory, terms,
    investorSignature: await env.investor.signTypedData(...ethersTypedDataArgs(doc)),
    traderSignature: await env.trader.signTypedData(...ethersTypedDataArgs(doc)),
  };
}

/** Both parties sign; the operator relays createVault. */
export async function newVault(chain: Chain, env: Env, over: Partial<VaultTerms> = {}): Promise<CreateVaultResult> {
  return createVault(chain.signer, await signedTerms(chain, env, over));
}

/** The investor signs a permit; the operator relays it, so the escrow is funded by an operator transaction. */
export async function fundWithPermit(chain: Chain, env: Env, vault: string, amount: bigint) {
  const deadline = (await chainNow(chain)) + DAY;
  const doc = await vaultPermitTypedData(chain.provider, { vault, amount, deadline });
  const signature = await env.investor.signTypedData(...ethersTypedDataArgs(doc));
  return fundVaultWithPermit(chain.signer, { vault, amount, deadline, signature });
}

export async function mintTo(chain: Chain, to: string, amount: bigint) {
  return mintSettlementToken(chain.signer, { token: chain.addresses.token, to, amount });
}
