// The chain module's facade: the embedded chain (Anvil, restored from its snapshots and the journal;
// embedded-chain.ts) or an external RPC chain, the operator's transaction sender and the contracts,
// behind one start/stop. The composition root wires `startChain` in; the vaults read the chain's
// events themselves (vaults/chain-indexer.ts).
import { JsonRpcProvider, Wallet } from "ethers";
import type { FetchRequest } from "ethers";
import type { Logger } from "pino";
import type { Store } from "../db/database.js";
import { firstJournalRow, getCursor } from "../db/chain-repo.js";
import { AppError } from "../errors.js";
import { ensureEmbeddedDeployment, ensureExternalDeployment } from "./chain-setup.js";
import { assertTermsVersion } from "./contracts.js";
import type { ExternalContracts } from "./chain-setup.js";
import { chainKey, findDeployment, readDeployment } from "./deployments.js";
import type { DeploymentRecord } from "./deployments.js";
import { startEmbeddedChain } from "./embedded-chain.js";
import type { EmbeddedChain } from "./embedded-chain.js";
import { EMBEDDED_CHAIN_ID } from "./embedded-node.js";
import { startPublicRpcProxy } from "./public-rpc-proxy.js";
import { OperatorSigner } from "./operator-signer.js";
import { createSenderSwitch, type SenderSwitch } from "./sender-switch.js";
import type { RelayContext, RelaySettings } from "./tx-relay.js";
import { DEFAULT_SENDER_SETTINGS, createTxSender } from "./tx-sender.js";
import type { ConfirmedTx, SenderLease, TxSender, TxSenderSettings } from "./tx-sender.js";
import { read } from "./tx.js";

export interface EmbeddedSettings {
  /** The public JSON-RPC proxy's port (public-rpc-proxy.ts); 0 = any free port. Always 127.0.0.1. */
  port: number;
  /** Seconds between snapshots of the chain's state (taken only when the chain moved). */
  snapshotIntervalS: number;
  /** Blocks between compactions (old blocks trimmed, the node reloaded): what bounds its memory. */
  compactEveryBlocks: number;
}

export const DEFAULT_EMBEDDED_SETTINGS: EmbeddedSettings = { port: 0, snapshotIntervalS: 300, compactEveryBlocks: 3_000 };

export interface StartChainOptions {
  dataDir: string;
  store: Store;
  log: Logger;
  /** Milliseconds since the epoch. */
  clock?: () => number;
  operatorKey: string;
  /** The default when `external` is absent. */
  embedded?: Partial<EmbeddedSettings>;
  external?: { rpcUrl: string; chainId: number } & ExternalContracts;
  sender?: Partial<TxSenderSettings>;
  /** Observes each mined operator transaction (the metrics' confirmation times). */
  onConfirmed?: (tx: ConfirmedTx) => void;
  /** How long stop() lets transactions in flight settle (the journal settles the rest at the next start). */
  shutdownSettleMs?: number;
  /**
   * Several daemons share the database (and so the operator key): this daemon sends the operator's
   * transactions only while promoted (it holds the sender's lease), else hands them to the one that does.
   */
  shared?: SharedSending;
}

export interface SharedSending {
  /** This daemon's id (cluster/cluster.ts): who asked, in the requests table. */
  requester: string;
  /** Runs `fn` while no other daemon runs one under the same name (PostgreSQL advisory lock): the first deployment. */
  lock<T>(name: string, fn: () => Promise<T>): Promise<T>;
  relay?: Partial<RelaySettings>;
  /** Wakes the relay's waiters early when another daemon writes (NOTIFY); they poll anyway. */
  wake?: RelayContext["wake"];
}

export interface ChainAddresses {
  factory: string;
  implementation: string;
  token: string;
}

export interface Chain {
  kind: "embedded" | "external";
  /** The chain's JSON-RPC for wallets and the CLI: on the embedded chain, the public proxy (never Anvil itself). */
  rpcUrl: string;
  chainId: number;
  /** Journal and record key: "31337" (embedded) or "external-<chainId>". */
  key: string;
  provider: JsonRpcProvider;
  operator: string;
  /** The operator as an ethers Signer for contracts.ts; its transactions go through `sender`. */
  signer: OperatorSigner;
  addresses: ChainAddresses;
  /** The factory's deployment block. */
  deployBlock: number;
  sender: TxSender;
  /** Sharing the database with other daemons: sends while this daemon holds the sender's lease, under its epoch (`follow`). */
  sending?: Pick<SenderSwitch, "promote" | "demote" | "follow" | "sending" | "epoch">;
  /** True when this start restored the embedded chain's history (snapshot and/or journal). */
  rebuilt: boolean;
  /** The embedded chain's lifecycle (snapshots, compaction, its Anvil pid); absent on an external chain. */
  embedded?: EmbeddedChain;
  operatorBalance(): Promise<bigint>;
  stop(): Promise<void>;
}

interface Connection {
  kind: "embedded" | "external";
  key: string;
  chainId: number;
  rpcUrl: string;
  provider: JsonRpcProvider;
  genesisTime?: number;
  rebuilt: boolean;
  embedded?: EmbeddedChain;
  close(): Promise<void>;
}

/** The vaults' indexer's cursor: one per chain and factory. */
export const cursorName = (key: string, factory: string) => `vaults:${key}:${factory}`;

function rpcProvider(url: string | FetchRequest, chainId: number, pollMs: number): JsonRpcProvider {
  // One request per HTTP call (no batching stall; some RPCs refuse batches); no response cache, so a
  // nonce or receipt read is never stale.
  return new JsonRpcProvider(url, chainId, { staticNetwork: true, cacheTimeout: -1, batchMaxCount: 1, pollingInterval: pollMs });
}

async function startEmbedded(opts: StartChainOptions, operator: string, nowS: () => number): Promise<Connection> {
  const { store, log } = opts;
  const key = chainKey("embedded", EMBEDDED_CHAIN_ID);
  const record = readDeployment(opts.dataDir, key);
  const first = await firstJournalRow(store.db, key);
  const genesisTime = record?.genesisTime ?? (first?.block_time ? first.block_time - 1 : nowS());
  const settings = { ...DEFAULT_EMBEDDED_SETTINGS, ...opts.embedded };
  const embedded = await startEmbeddedChain({
    dataDir: opts.dataDir, chain: key, store, log, operator, genesisTime, nowS,
    // Read each time: on a first start the factory (and so the cursor's name) exists only later.
    indexedBlock: async () => {
      const current = readDeployment(opts.dataDir, key);
      return current ? ((await getCursor(store.db, cursorName(key, current.factory))) ?? 0) : 0;
    },
    snapshotIntervalS: settings.snapshotIntervalS, compactEveryBlocks: settings.compactEveryBlocks,
  });
  // Only now listens: no wallet sees the chain before its rebuild is done.
  const proxy = await startPublicRpcProxy({ port: settings.port, send: embedded.send, log }).catch(async (e: unknown) => {
    await embedded.close();
    throw e;
  });
  const provider = rpcProvider(embedded.request(), EMBEDDED_CHAIN_ID, 250);
  const node = embedded.node();
  log.info({ rpcUrl: proxy.url, ipc: node.ipcPath, isolated: node.isolated, chainId: EMBEDDED_CHAIN_ID, restored: embedded.restored }, "embedded chain listening");
  return {
    kind: "embedded", key, chainId: EMBEDDED_CHAIN_ID, rpcUrl: proxy.url, provider, genesisTime, rebuilt: embedded.restored, embedded,
    close: async () => {
      await proxy.close();
      await embedded.close();
      provider.destroy();
    },
  };
}

async function connectExternal(ext: NonNullable<StartChainOptions["external"]>): Promise<Connection> {
  const provider = rpcProvider(ext.rpcUrl, ext.chainId, 2_000);
  const actual = Number(await read("read chain id", () => provider.send("eth_chainId", [])));
  if (actual !== ext.chainId) {
    provider.destroy();
    throw new AppError("CHAIN_UNAVAILABLE", `the RPC at ${ext.rpcUrl} serves chain ${actual}, not ${ext.chainId}`);
  }
  return {
    kind: "external", key: chainKey("external", ext.chainId), chainId: ext.chainId, rpcUrl: ext.rpcUrl, provider, rebuilt: false,
    close: async () => provider.destroy(),
  };
}

function senderSettings(kind: Connection["kind"], given?: Partial<TxSenderSettings>): TxSenderSettings {
  // Automining answers at once; a public chain gets time before a transaction counts as stuck.
  const local: Partial<TxSenderSettings> = kind === "embedded"
    ? { pollMs: 250, bumpAfterMs: 10_000, confirmTimeoutMs: 30_000, simulateWithGasLimit: false }
    : {};
  return { ...DEFAULT_SENDER_SETTINGS, ...local, ...given };
}

/** How the vaults' indexer reads this kind of chain: the embedded chain at once, an external one two blocks behind, in HyperEVM's 50-block pages. */
export function indexerSettings(kind: Chain["kind"]): { confirmations: number; pageSize: number; pollMs: number } {
  return kind === "embedded" ? { confirmations: 0, pageSize: 2_000, pollMs: 500 } : { confirmations: 2, pageSize: 50, pollMs: 2_000 };
}

interface Parts {
  wallet: Wallet;
  signer: OperatorSigner;
  sender: TxSender;
  sending?: Chain["sending"];
  record: DeploymentRecord;
  settleMs: number;
}

function facade(conn: Connection, p: Parts): Chain {
  const { record } = p;
  return {
    kind: conn.kind, rpcUrl: conn.rpcUrl, chainId: conn.chainId, key: conn.key, provider: conn.provider,
    operator: p.wallet.address, signer: p.signer, sender: p.sender, sending: p.sending, rebuilt: conn.rebuilt, embedded: conn.embedded,
    deployBlock: record.deployBlock,
    addresses: { factory: record.factory, implementation: record.implementation, token: record.token },
    operatorBalance: () => read("read balance", () => conn.provider.getBalance(p.wallet.address)),
    stop: async () => {
      await p.sender.drain(p.settleMs);
      await p.sender.stop();
      await conn.close();
    },
  };
}

/** The sender of a daemon sharing its database: relayed until promoted. */
function switchFor(
  shared: SharedSending, conn: Connection, address: string, settings: TxSenderSettings, opts: StartChainOptions,
  clock: () => number, newSender: (lease?: SenderLease) => TxSender,
): SenderSwitch {
  const relay: RelayContext = {
    db: opts.store.db, work: opts.store, chain: conn.key, requester: shared.requester, provider: conn.provider, address, clock, log: opts.log,
    settings: { pollMs: 100, claimTimeoutMs: 30_000, confirmTimeoutMs: settings.confirmTimeoutMs, ...shared.relay },
    wake: shared.wake, onConfirmed: opts.onConfirmed,
  };
  // An embedded chain is this daemon's alone: its unfenced sender is never replaced by a lease's.
  return createSenderSwitch(relay, newSender, opts.log, { ownChain: conn.kind === "embedded" });
}

/** Starts (or connects to) the chain, settles the journal, finds or deploys the contracts, catches the indexer up. */
export async function startChain(opts: StartChainOptions): Promise<Chain> {
  const clock = opts.clock ?? Date.now;
  const nowS = () => Math.floor(clock() / 1000);
  const wallet = new Wallet(opts.operatorKey);
  const conn = opts.external ? await connectExternal(opts.external) : await startEmbedded(opts, wallet.address, nowS);
  const settings = senderSettings(conn.kind, opts.sender);
  const newSender = (lease?: SenderLease) => createTxSender({
    provider: conn.provider, wallet, chainId: BigInt(conn.chainId), chain: conn.key, store: opts.store, log: opts.log, nowS,
    settings, onConfirmed: opts.onConfirmed, lease,
  });
  const shared = opts.shared;
  const sender = shared ? switchFor(shared, conn, wallet.address, settings, opts, clock, newSender) : newSender();
  try {
    await sender.start();
    // An embedded chain is this daemon's own (the daemon command refuses one with a shared database;
    // a test may run one daemon alone on a database): it sends for it.
    if (shared && conn.kind === "embedded") await (sender as SenderSwitch).promote();
    const signer = new OperatorSigner(sender, conn.provider);
    const setup = {
      dataDir: opts.dataDir, key: conn.key, chainId: conn.chainId, provider: conn.provider, signer,
      operator: wallet.address, store: opts.store, log: opts.log, nowS,
    };
    const record = conn.kind === "embedded"
      ? await ensureEmbeddedDeployment(setup, { genesisTime: conn.genesisTime!, rebuilt: conn.rebuilt })
      : shared
        ? await shared.lock(`deploy:${conn.key}`, async () => {
          // Only a first start on an empty database sends (no other daemon has deployed, and those
          // starting now wait on this lock), so the deployment needs no sender's lease.
          const known = await findDeployment(opts.store.db, opts.dataDir, conn.key);
          if (!known && !opts.external!.factory) await (sender as SenderSwitch).promote();
          return ensureExternalDeployment(setup, opts.external!);
        })
        : await ensureExternalDeployment(setup, opts.external!);
    await assertTermsVersion(conn.provider, record.factory);
    conn.embedded?.startMaintenance();
    return facade(conn, { wallet, signer, sender, sending: shared ? (sender as SenderSwitch) : undefined, record, settleMs: opts.shutdownSettleMs ?? 5_000 });
  } catch (e) {
    await sender.stop();
    await conn.close();
    throw e;
  }
}
