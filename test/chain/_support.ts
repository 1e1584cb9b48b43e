// Shared set-up of the chain module tests: a data directory and store, the embedded chain started
// through the daemon's own facade on a free loopback port, two parties with real wallets that sign
// terms and permits, and helpers that drive vaults through the operator's one sending path.
import { join } from "node:path";
import { Wallet } from "ethers";
import pino from "pino";
import { cursorName, indexerSettings, startChain } from "../../daemon/chain/chain.js";
import type { TxResult } from "../../daemon/chain/tx.js";
import { createIndexer, type Indexer, type IndexerSettings } from "../../daemon/vaults/chain-indexer.js";
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
/** The chain with the vaults' indexer on it, as the daemon runs them: stopping it stops the indexer first. */
export type IndexedChain = Chain & { indexer: Indexer };

/** The vaults' indexer on this chain and store, with the daemon's settings for the chain's kind unless given. */
export function indexerFor(chain: Chain, store: Store, settings: Partial<IndexerSettings> = {}): Indexer {
  return createIndexer({
    store, provider: chain.provider, factory: chain.addresses.factory, startBlock: chain.deployBlock,
    name: cursorName(chain.key, chain.addresses.factory), settings: { ...indexerSettings(chain.kind), ...settings }, log: silent,
  });
}

/** startChain, and the vaults' indexer caught up and running, as the daemon starts them. */
export async function startIndexed(opts: StartChainOptions, settings: Partial<IndexerSettings> = {}): Promise<IndexedChain> {
  const chain = await startChain(opts);
  const indexer = indexerFor(chain, opts.store, settings);
  await indexer.sync();
  if (!chain.sending || chain.sending.sending()) indexer.start();
  const stopChain = chain.stop;
  return Object.assign(chain, {
    indexer,
    stop: async () => {
      await indexer.stop();
      await stopChain();
    },
  });
}

export async function start(env: Env, over: Partial<StartChainOptions> & { indexer?: Partial<IndexerSettings> } = {}): Promise<IndexedChain> {
  const { indexer, ...rest } = over;
  return startIndexed({
    dataDir: env.dir, store: env.store, log: silent, operatorKey: env.operatorKey,
    embedded: { port: await freePort() }, ...rest,
  }, indexer);
}

/** A transaction's events written through at once, as the daemon's chain-ops does after each call. */
export async function recorded<R extends TxResult>(chain: IndexedChain, r: R): Promise<R> {
  await chain.indexer.applyReceipt(r.receipt);
  return r;
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
export async function newVault(chain: IndexedChain, env: Env, over: Partial<VaultTerms> = {}): Promise<CreateVaultResult> {
  return recorded(chain, await createVault(chain.signer, await signedTerms(chain, env, over)));
}

/** The investor signs a permit; the operator relays it, so the escrow is funded by an operator transaction. */
export async function fundWithPermit(chain: IndexedChain, env: Env, vault: string, amount: bigint) {
  const deadline = (await chainNow(chain)) + DAY;
  const doc = await vaultPermitTypedData(chain.provider, { vault, amount, deadline });
  const signature = await env.investor.signTypedData(...ethersTypedDataArgs(doc));
  return recorded(chain, await fundVaultWithPermit(chain.signer, { vault, amount, deadline, signature }));
}

export async function mintTo(chain: Chain, to: string, amount: bigint) {
  return mintSettlementToken(chain.signer, { token: chain.addresses.token, to, amount });
}
