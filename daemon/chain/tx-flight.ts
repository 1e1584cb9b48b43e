// One operator nonce in flight: its signed attempts (the original and any gas bumps), their
// broadcast, and how the flight settles: mined (confirmed or reverted, the other attempts replaced),
// or taken by a transaction the journal does not know. The sender (tx-sender.ts) owns the flights.
import { Transaction, isError } from "ethers";
import type { JsonRpcProvider, TransactionReceipt, Wallet } from "ethers";
import type { Logger } from "pino";
import type { Executor, Store } from "../db/database.js";

/** What the sender needs of the store: its own journal, read and written. */
export type JournalStore = Pick<Store, "db" | "write">;
import { insertJournal, markReplaced, requestClaimedBy, requestSignedOutside, updateJournal } from "../db/chain-repo.js";
import { lockLease } from "../db/cluster-repo.js";
import type { TxJournalRow } from "../db/schema-chain.js";
import { AppError, isAppError } from "../errors.js";
import { bumpFees, currentFees, feeCeiling, feesOf } from "./tx-fees.js";
import type { Fees } from "./tx-fees.js";

export interface TxSenderSettings {
  /** How long wait() waits for a receipt before answering CHAIN_UNAVAILABLE (the flight goes on). */
  confirmTimeoutMs: number;
  /** A transaction not mined this long after its last (re)send is re-priced. */
  bumpAfterMs: number;
  /** Fee increase per bump, percent (nodes want at least 10). */
  bumpPercent: number;
  /** Never offer more than this per gas (wei); a stuck transaction then just waits. */
  maxFeePerGas?: bigint;
  /** How often flights are checked. */
  pollMs: number;
  /**
   * How long a nonce must look used, with no receipt for any attempt, before the flight is given up
   * as taken by a transaction the daemon did not send. A node may count a mined transaction in the
   * sender's nonce a moment before it serves the receipt (Anvil does, under bursts), and a real
   * chain may reorganise a transaction out and back in: one look is not proof.
   */
  takenGraceMs: number;
  /** Added to the gas estimate, percent: state may move between simulation and mining. */
  gasHeadroomPercent: number;
  /**
   * Whether a transaction that brings its own gas limit is still simulated (eth_call) before it is
   * signed, so a revert costs no gas. Off on the embedded chain, where gas is free and a revert still
   * shows in the receipt: there the simulation would buy nothing but a round trip per batch.
   */
  simulateWithGasLimit: boolean;
  /** Tries of a read before signing (fees, nonce, simulation) when the node fails in a way worth retrying. */
  readAttempts: number;
  /** Wait before the second try of such a read; doubled before each later one. */
  readRetryMs: number;
}

export interface ConfirmedTx {
  hash: string;
  nonce: number;
  purpose: string;
  receipt: TransactionReceipt;
  blockTime: number;
  reverted: boolean;
  /** Milliseconds from the flight's first send (or its resumption after a restart) to the receipt. */
  elapsedMs: number;
}

export interface SenderContext {
  provider: JsonRpcProvider;
  wallet: Wallet;
  chainId: bigint;
  /** Journal partition (chainKey). */
  chain: string;
  store: JournalStore;
  log: Logger;
  nowS(): number;
  settings: TxSenderSettings;
  /** Runs before a waiter learns of the receipt, so what it wrote is visible at once. */
  onConfirmed?(tx: ConfirmedTx): Promise<void> | void;
  /**
   * Several daemons on one database: the sender's lease this sender signs under. Every signature
   * is checked against it in the transaction that journals it; absent, the daemon sends alone.
   */
  lease?: SenderLease;
}

/** The lease (cluster/cluster.ts) a sender holds while it may sign: its key, this daemon, and the epoch it won. */
export interface SenderLease {
  key: string;
  holder: string;
  epoch: number;
}

/** Nothing was signed: this sender no longer holds its lease's epoch; the next sender sends it (retryable). */
export function senderFenced(lease: SenderLease, purpose: string): AppError {
  return new AppError("CHAIN_UNAVAILABLE", `${purpose}: this daemon no longer holds the operator sender's lease (epoch ${lease.epoch}); nothing was signed`, {
    retryable: true, details: { fenced: true, epoch: lease.epoch },
  });
}

export const isSenderFenced = (e: unknown): boolean =>
  isAppError(e) && (e.details as { fenced?: unknown } | undefined)?.fenced === true;

export interface Flight {
  nonce: number;
  purpose: string;
  /** Live attempts (pending or sent), oldest first. */
  rows: TxJournalRow[];
  /** Date.now() of the last (re)send. */
  lastSentAt: number;
  /** Date.now() of the first send by this process. */
  sentAt: number;
  /** Broadcast the newest attempt again on the next check (outcome of the last one in doubt). */
  needsBroadcast: boolean;
  /** Date.now() of the first look that found the nonce used with no receipt of ours; cleared otherwise. */
  takenSince?: number;
  done: Promise<ConfirmedTx>;
  resolve(tx: ConfirmedTx): void;
  reject(e: AppError): void;
}

export function newFlight(nonce: number, purpose: string, rows: TxJournalRow[], needsBroadcast: boolean): Flight {
  let resolve!: (tx: ConfirmedTx) => void;
  let reject!: (e: AppError) => void;
  const done = new Promise<ConfirmedTx>((res, rej) => ((resolve = res), (reject = rej)));
  done.catch(() => {}); // a flight nobody waits for must not become an unhandled rejection
  return { nonce, purpose, rows, lastSentAt: Date.now(), sentAt: Date.now(), needsBroadcast, done, resolve, reject };
}

export interface TxFields {
  to: string | null;
  data: string;
  value: bigint;
  gasLimit: bigint;
  nonce: number;
}

function signAttempt(ctx: SenderContext, f: TxFields, fees: Fees): Promise<string> {
  return ctx.wallet.signTransaction({ chainId: ctx.chainId, ...f, ...fees });
}

/**
 * Signs an attempt and journals it, in one transaction with the lease's check: the lease row stays
 * locked until the row is committed, so a new sender (who takes the lease only after) resumes from
 * a journal that holds it, and a sender that lost the lease signs nothing. A relayed request is
 * signed only by the epoch that claimed it, and never when another epoch has signed it already.
 */
export function journalAttempt(
  ctx: SenderContext, f: TxFields, fees: Fees, purpose: string, replaces: number | null, requestId: string | null = null,
): Promise<TxJournalRow> {
  const { lease } = ctx;
  return ctx.store.write(async (trx) => {
    if (lease) await checkLease(trx, lease, purpose, requestId);
    const raw = await signAttempt(ctx, f, fees);
    const tx = Transaction.from(raw);
    const now = ctx.nowS();
    return insertJournal(trx, {
      chain: ctx.chain, hash: tx.hash!, nonce: tx.nonce, raw, purpose, status: "pending", replaces, request_id: requestId,
      sender: lease?.holder ?? null, sender_epoch: lease?.epoch ?? null,
      block_number: null, block_time: null, created_at: now, updated_at: now, error: null,
    });
  });
}

async function checkLease(trx: Executor, lease: SenderLease, purpose: string, requestId: string | null): Promise<void> {
  if (!(await lockLease(trx, lease.key, lease.holder, lease.epoch))) throw senderFenced(lease, purpose);
  if (requestId === null) return;
  if (!(await requestClaimedBy(trx, requestId, lease.epoch)) || (await requestSignedOutside(trx, requestId, lease.epoch))) {
    throw new AppError("CONFLICT", `${purpose}: request ${requestId} is not this sender's to sign (claimed or signed under another epoch)`);
  }
}

export type BroadcastOutcome = "sent" | "in-doubt" | "nonce-used" | { rejected: unknown };

const TRANSPORT = ["NETWORK_ERROR", "TIMEOUT", "SERVER_ERROR"];

/**
 * Sends a signed transaction. A refusal is told apart from "it is there anyway" by asking the node
 * for the hash afterwards (never by the message text, which differs from node to node).
 */
export async function broadcast(ctx: SenderContext, row: TxJournalRow): Promise<BroadcastOutcome> {
  try {
    await ctx.provider.send("eth_sendRawTransaction", [row.raw]);
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    if (typeof code !== "string" || TRANSPORT.includes(code)) return "in-doubt";
    try {
      if (await ctx.provider.getTransaction(row.hash)) return markSent(ctx, row);
    } catch {
      return "in-doubt";
    }
    if (isError(e, "NONCE_EXPIRED")) return "nonce-used";
    return { rejected: e };
  }
  return markSent(ctx, row);
}

async function markSent(ctx: SenderContext, row: TxJournalRow): Promise<"sent"> {
  if (row.status === "pending") {
    await updateJournal(ctx.store.db, row.id, { status: "sent" }, ctx.nowS());
    row.status = "sent";
  }
  return "sent";
}

export async function markFailed(ctx: SenderContext, row: TxJournalRow, error: unknown): Promise<void> {
  const message = error instanceof Error ? error.message : String(error);
  await updateJournal(ctx.store.db, row.id, { status: "failed", error: message.slice(0, 500) }, ctx.nowS());
}

async function settleMined(ctx: SenderContext, f: Flight, row: TxJournalRow, receipt: TransactionReceipt): Promise<void> {
  const block = await ctx.provider.getBlock(receipt.blockNumber);
  if (!block) throw new Error(`block ${receipt.blockNumber} vanished`);
  const reverted = receipt.status !== 1;
  const now = ctx.nowS();
  await ctx.store.write(async (trx) => {
    await updateJournal(trx, row.id,
      { status: reverted ? "reverted" : "confirmed", block_number: receipt.blockNumber, block_time: block.timestamp, error: null }, now);
    await markReplaced(trx, ctx.chain, f.nonce, row.id, now);
  });
  const tx: ConfirmedTx = { hash: row.hash, nonce: f.nonce, purpose: f.purpose, receipt, blockTime: block.timestamp, reverted, elapsedMs: Date.now() - f.sentAt };
  try {
    await ctx.onConfirmed?.(tx);
  } catch (e) {
    // The indexer reconciles from the chain later; the transaction itself is settled.
    ctx.log.error({ err: e, txHash: row.hash }, "writing a receipt's events through failed");
  }
  if (reverted) ctx.log.warn({ txHash: row.hash, purpose: f.purpose }, "operator transaction mined but reverted");
  f.resolve(tx);
}

/** Re-prices the flight: the same transaction with higher fees, under the same nonce. */
async function bump(ctx: SenderContext, f: Flight): Promise<void> {
  const newest = f.rows[f.rows.length - 1]!;
  const tx = Transaction.from(newest.raw);
  const { fees: now } = await currentFees(ctx.provider);
  const fees = bumpFees(feesOf(tx), now, ctx.settings.bumpPercent);
  f.lastSentAt = Date.now();
  if (ctx.settings.maxFeePerGas !== undefined && feeCeiling(fees) > ctx.settings.maxFeePerGas) {
    ctx.log.warn({ nonce: f.nonce, txHash: newest.hash }, "stuck transaction at the fee ceiling; waiting");
    return;
  }
  const fields = { to: tx.to, data: tx.data, value: tx.value, gasLimit: tx.gasLimit, nonce: tx.nonce };
  const row = await journalAttempt(ctx, fields, fees, f.purpose, f.rows[0]!.id);
  const outcome = await broadcast(ctx, row);
  if (outcome === "sent" || outcome === "in-doubt") {
    f.rows.push(row);
    f.needsBroadcast = outcome === "in-doubt";
    ctx.log.info({ nonce: f.nonce, from: newest.hash, to: row.hash }, "re-priced a stuck transaction");
  } else {
    // Underpriced after all, or the old one was just mined: the next check finds out which.
    await markFailed(ctx, row, outcome === "nonce-used" ? "nonce already used" : (outcome.rejected as Error));
  }
}

/**
 * One look at a flight; true when it settled. `latestNonce` was read before the receipts. A sender
 * that lost its lease (`mayBump` false) still settles and rebroadcasts what was journaled, never re-prices.
 */
export async function checkFlight(ctx: SenderContext, f: Flight, latestNonce: number, mayBump = true): Promise<boolean> {
  for (const row of [...f.rows].reverse()) {
    const receipt = await ctx.provider.getTransactionReceipt(row.hash);
    if (receipt) {
      await settleMined(ctx, f, row, receipt);
      return true;
    }
  }
  if (latestNonce > f.nonce) {
    // The nonce is used and no attempt has a receipt yet. Only when that lasts is it proof that the
    // key sent elsewhere (or a reorganisation dropped ours); until then nothing is rebroadcast or
    // re-priced, since the nonce is gone either way.
    f.takenSince ??= Date.now();
    if (Date.now() - f.takenSince < ctx.settings.takenGraceMs) return false;
    ctx.log.error({ nonce: f.nonce, hashes: f.rows.map((r) => r.hash) }, "operator nonce taken by a transaction the daemon did not send");
    const now = ctx.nowS();
    for (const row of f.rows) await updateJournal(ctx.store.db, row.id, { status: "replaced", error: "nonce taken by an unknown transaction" }, now);
    f.reject(new AppError("CHAIN_UNAVAILABLE", `operator nonce ${f.nonce} was used by a transaction the daemon did not send`));
    return true;
  }
  f.takenSince = undefined;
  if (f.needsBroadcast) {
    const outcome = await broadcast(ctx, f.rows[f.rows.length - 1]!);
    f.needsBroadcast = outcome === "in-doubt";
    if (outcome === "sent") f.lastSentAt = Date.now();
    if (typeof outcome === "object") {
      // Refused now (its fee below today's base fee, say): a re-priced copy on the next look.
      ctx.log.warn({ nonce: f.nonce, err: outcome.rejected }, "node refused a resent transaction");
      f.lastSentAt = 0;
    }
  } else if (mayBump && Date.now() - f.lastSentAt >= ctx.settings.bumpAfterMs) {
    await bump(ctx, f);
  }
  return false;
}
