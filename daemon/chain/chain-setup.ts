// Which contracts the daemon uses on a chain: found again (deployments record, or the journal after
// a restore), checked against the chain, or deployed once with the operator signer and recorded.
import { getAddress, getCreateAddress } from "ethers";
import type { JsonRpcProvider, Signer } from "ethers";
import type { Logger } from "pino";
import type { Store } from "../db/database.js";
import { journalByPurpose } from "../db/chain-repo.js";
import { AppError } from "../errors.js";
import { deploySettlementToken, deployVaultSystem, readFactory } from "./contracts.js";
import { findDeployment, readDeployment, recordDeployment, writeDeployment } from "./deployments.js";
import type { DeploymentRecord } from "./deployments.js";
import { read } from "./tx.js";

export interface SetupContext {
  dataDir: string;
  key: string;
  chainId: number;
  provider: JsonRpcProvider;
  signer: Signer;
  operator: string;
  store: Store;
  log: Logger;
  nowS(): number;
}

export async function hasCode(provider: JsonRpcProvider, address: string, blockTag?: number): Promise<boolean> {
  const code = await read("read code", () => provider.getCode(address, blockTag));
  return code !== "0x";
}

async function receiptBlock(provider: JsonRpcProvider, hash: string): Promise<number> {
  const receipt = await read("read receipt", () => provider.getTransactionReceipt(hash));
  if (!receipt) throw new AppError("INTERNAL", `deployment transaction ${hash} has no receipt`);
  return receipt.blockNumber;
}

/** Deploys what is missing (the test token unless one is given, then implementation + factory). */
async function deployAll(ctx: SetupContext, token?: string): Promise<Omit<DeploymentRecord, "kind" | "genesisTime">> {
  const settlementToken = token ?? (await deploySettlementToken(ctx.signer, { owner: ctx.operator })).address;
  const system = await deployVaultSystem(ctx.signer, { settlementToken, operator: ctx.operator });
  const deployBlock = await receiptBlock(ctx.provider, system.txHashes[1]);
  ctx.log.info({ factory: system.factory, token: settlementToken, chainId: ctx.chainId }, "vault system deployed");
  return {
    chainId: ctx.chainId, factory: system.factory, implementation: system.implementation, token: settlementToken,
    operator: ctx.operator, deployBlock, createdAt: ctx.nowS(),
  };
}

/**
 * After a restore without a record (it was deleted): the deployments are in the journal. Their
 * addresses follow from the operator and the nonce (CREATE), not from receipts, which a pruned chain
 * or a trimmed snapshot no longer holds.
 */
async function recordFromJournal(ctx: SetupContext, genesisTime: number): Promise<DeploymentRecord> {
  const deployed = async (purpose: string) => {
    const row = await journalByPurpose(ctx.store.db, ctx.key, purpose);
    if (!row || row.block_number === null) throw new AppError("INTERNAL", `the journal holds no ${purpose}; cannot recover the deployments record`);
    return { address: getCreateAddress({ from: ctx.operator, nonce: row.nonce }), block: row.block_number };
  };
  const [token, implementation, factory] = [
    await deployed("deploy:TestUSDC"), await deployed("deploy:TradingVault"), await deployed("deploy:VaultFactory"),
  ];
  return {
    chainId: ctx.chainId, kind: "embedded", factory: factory.address, implementation: implementation.address,
    token: token.address, operator: ctx.operator, deployBlock: factory.block, genesisTime, createdAt: ctx.nowS(),
  };
}

/** The embedded chain: the record's contracts (after a rebuild), or a first deployment. */
export async function ensureEmbeddedDeployment(ctx: SetupContext, opts: { genesisTime: number; rebuilt: boolean }): Promise<DeploymentRecord> {
  const record = readDeployment(ctx.dataDir, ctx.key);
  if (record && (await hasCode(ctx.provider, record.factory))) return record;
  if (opts.rebuilt) {
    if (record) throw new AppError("INTERNAL", `the restored embedded chain has no factory at ${record.factory}`);
    const recovered = await recordFromJournal(ctx, opts.genesisTime);
    writeDeployment(ctx.dataDir, ctx.key, recovered);
    return recovered;
  }
  const fresh: DeploymentRecord = { ...(await deployAll(ctx)), kind: "embedded", genesisTime: opts.genesisTime };
  writeDeployment(ctx.dataDir, ctx.key, fresh);
  return fresh;
}

/**
 * The factory's deployment block, so the indexer need not scan the chain from block 0: a binary
 * search over historical code. Nodes without history answer errors; then indexing starts at the head.
 */
async function findDeployBlock(ctx: SetupContext, factory: string): Promise<number> {
  const head = await read("read block number", () => ctx.provider.getBlockNumber());
  try {
    let lo = 0;
    let hi = head;
    while (lo < hi) {
      const mid = Math.floor((lo + hi) / 2);
      if (await hasCode(ctx.provider, factory, mid)) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  } catch (e) {
    ctx.log.warn({ err: e, head }, "cannot find the factory's deployment block (no archive data); indexing from the head");
    return head;
  }
}

export interface ExternalContracts {
  factory?: string;
  token?: string;
  /** Where indexing starts when the daemon did not deploy the factory itself. */
  startBlock?: number;
}

/** An external chain: the configured or recorded factory (checked), or a deployment made once. */
export async function ensureExternalDeployment(ctx: SetupContext, given: ExternalContracts): Promise<DeploymentRecord> {
  const record = await findDeployment(ctx.store.db, ctx.dataDir, ctx.key);
  const factory = given.factory ? getAddress(given.factory) : record?.factory;
  if (!factory) {
    const deployed: DeploymentRecord = { ...(await deployAll(ctx, given.token && getAddress(given.token))), kind: "external" };
    await recordDeployment(ctx.store.db, ctx.dataDir, ctx.key, deployed);
    return deployed;
  }
  if (!(await hasCode(ctx.provider, factory))) throw new AppError("INTERNAL", `no contract at the factory address ${factory} on chain ${ctx.chainId}`);
  const info = await readFactory(ctx.provider, { factory });
  if (Number(info.chainId) !== ctx.chainId) throw new AppError("INTERNAL", `factory ${factory} belongs to chain ${info.chainId}`);
  if (given.token && getAddress(given.token) !== info.settlementToken) {
    throw new AppError("INTERNAL", `factory ${factory} settles in ${info.settlementToken}, not ${getAddress(given.token)}`);
  }
  if (info.operator !== ctx.operator) {
    ctx.log.warn({ factoryOperator: info.operator, operator: ctx.operator }, "this daemon's key is not the factory's operator: balance writes will fail");
  }
  const deployBlock = record?.factory === factory ? record.deployBlock : (given.startBlock ?? (await findDeployBlock(ctx, factory)));
  const next: DeploymentRecord = {
    chainId: ctx.chainId, kind: "external", factory, implementation: info.implementation, token: info.settlementToken,
    operator: info.operator, deployBlock, createdAt: record?.createdAt ?? ctx.nowS(),
  };
  await recordDeployment(ctx.store.db, ctx.dataDir, ctx.key, next);
  return next;
}
