// Several daemons, one operator key: exactly one daemon signs and sends (the elected sender, see
// cluster/cluster.ts), so the operator's nonces never collide. The others hand their transactions
// over through the database: a `tx_requests` row, which the sender claims, signs (its journal row
// names the request) and marks sent with the nonce; the requester then follows that nonce in the
// shared journal until an attempt is mined, and reads the receipt from the chain itself.
//
// A failover is safe at every step: a queued request waits for the next sender; a claimed one is
// looked up in the journal by the new sender (signed: it is marked sent; never signed: queued again,
// since a transaction is journaled before it is broadcast); a sent one settles through the journal,
// which the new sender's flights keep settling after it resumes them. A claim records the claimer's
// epoch of the sender's lease, checked in the claim's transaction, and only that epoch may sign the
// request (tx-flight.ts): a sender that lost the lease, woken late, neither claims nor signs.
import { randomBytes } from "node:crypto";
import type { JsonRpcProvider } from "ethers";
import type { Logger } from "pino";
import {
  attemptsAt, findTxRequest, insertTxRequest, journalOfRequest, moveTxRequest, pruneTxRequests, txRequestsIn,
} from "../db/chain-repo.js";
import { lockLease } from "../db/cluster-repo.js";
import type { Executor, UnitOfWork } from "../db/database.js";
import type { TxRequestRow } from "../db/schema-chain.js";
import { AppError, asAppError, type ErrorCode } from "../errors.js";
import { isSenderFenced, type SenderLease } from "./tx-flight.js";
import type { ConfirmedTx, SendRequest, SentTx, TxSender } from "./tx-sender.js";

export interface RelaySettings {
  /** How often a waiting requester (or the serving sender) looks at the table. */
  pollMs: number;
  /** How long a request may wait for a sender to claim it before the requester gives up (retryable). */
  claimTimeoutMs: number;
  /** How long wait() waits for the mined attempt. */
  confirmTimeoutMs: number;
}

export interface RelayContext {
  db: Executor;
  /** Where a claim is checked against the sender's lease. */
  work: Pick<UnitOfWork, "write">;
  /** The journal partition (Chain.key). */
  chain: string;
  /** This daemon (cluster id): who asked. */
  requester: string;
  provider: JsonRpcProvider;
  /** The operator's address: every daemon has the key, only the sender uses it. */
  address: string;
  clock: () => number;
  log: Logger;
  settings: RelaySettings;
  /** Woken early when another daemon writes a request or a journal row (PostgreSQL NOTIFY); polls anyway. */
  wake?: (listener: () => void) => () => void;
  /** Runs when the requester learns of a mined transaction: the receipt's events are written here too. */
  onConfirmed?(tx: ConfirmedTx): Promise<void> | void;
}

const sleep = (ms: number, wake?: RelayContext["wake"]) =>
  new Promise<void>((resolve) => {
    const stop = wake?.(() => done());
    const timer = setTimeout(() => done(), ms);
    function done() {
      clearTimeout(timer);
      stop?.();
      resolve();
    }
  });

function errorOf(row: TxRequestRow): AppError {
  const e = JSON.parse(row.error ?? "{}") as { code?: ErrorCode; message?: string; details?: unknown; retryable?: boolean };
  return new AppError(e.code ?? "CHAIN_UNAVAILABLE", e.message ?? `${row.purpose}: the sender could not send it`, {
    details: e.details, retryable: e.retryable ?? false,
  });
}

/** The requesting side: a TxSender whose send() hands the transaction to the daemon that sends. */
export function createRelayedSender(ctx: RelayContext): TxSender {
  const { db, settings } = ctx;
  let inFlight = 0;
  let stopped = false;

  async function claimedOrGiveUp(id: string): Promise<TxRequestRow> {
    const deadline = ctx.clock() + settings.claimTimeoutMs;
    for (;;) {
      const row = await findTxRequest(db, id);
      if (row?.status === "sent" || row?.status === "failed") return row;
      if (ctx.clock() > deadline || stopped) {
        if (await moveTxRequest(db, id, "queued", { status: "abandoned", updated_at: ctx.clock() })) {
          throw new AppError("CHAIN_UNAVAILABLE", `${row?.purpose ?? "transaction"}: no daemon took the operator's transaction within ${settings.claimTimeoutMs} ms (is the sender up?)`, { retryable: true });
        }
        // Claimed meanwhile: the sender is signing it, so its outcome is worth waiting for.
      }
      await sleep(settings.pollMs, ctx.wake);
    }
  }

  async function mined(row: TxRequestRow, timeoutMs: number): Promise<ConfirmedTx> {
    const nonce = Number(row.tx_nonce);
    const started = ctx.clock();
    for (;;) {
      const attempts = await attemptsAt(db, ctx.chain, nonce);
      const done = attempts.find((a) => a.status === "confirmed" || a.status === "reverted");
      if (done) {
        const receipt = await ctx.provider.getTransactionReceipt(done.hash);
        if (receipt) {
          const tx: ConfirmedTx = {
            hash: done.hash, nonce, purpose: row.purpose, receipt, reverted: done.status === "reverted",
            blockTime: done.block_time ?? Math.floor(ctx.clock() / 1000), elapsedMs: ctx.clock() - started,
          };
          await ctx.onConfirmed?.(tx);
          return tx;
        }
      } else if (attempts.length > 0 && attempts.every((a) => a.status === "failed" || a.status === "replaced")) {
        throw new AppError("CHAIN_UNAVAILABLE", `${row.purpose}: operator nonce ${nonce} was taken by another transaction`, { retryable: true });
      }
      if (ctx.clock() - started > timeoutMs) {
        throw new AppError("CHAIN_UNAVAILABLE", `transaction ${row.tx_hash} not mined within ${timeoutMs} ms`, {
          retryable: true, details: { txHash: row.tx_hash, nonce },
        });
      }
      await sleep(settings.pollMs, ctx.wake);
    }
  }

  async function send(req: SendRequest): Promise<SentTx> {
    if (stopped) throw new AppError("CHAIN_UNAVAILABLE", "the daemon is stopping", { retryable: true });
    if (req.nonce !== undefined) throw new AppError("INTERNAL", `${req.purpose}: a chosen nonce needs the sending daemon`);
    const id = randomBytes(12).toString("hex");
    const now = ctx.clock();
    await insertTxRequest(db, {
      id, requester: ctx.requester, to: req.to ?? null, data: req.data ?? "0x", value: req.value?.toString() ?? null,
      gas_limit: req.gasLimit?.toString() ?? null, nonce: null, purpose: req.purpose, status: "queued",
      tx_hash: null, tx_nonce: null, error: null, created_at: now, updated_at: now,
    });
    inFlight += 1;
    try {
      const row = await claimedOrGiveUp(id);
      if (row.status === "failed") throw errorOf(row);
      const waitMined = (ms = settings.confirmTimeoutMs) => mined(row, ms);
      const wait = async (ms?: number) => {
        const tx = await waitMined(ms);
        if (tx.reverted) throw new AppError("INTERNAL", `${row.purpose}: transaction ${tx.hash} was mined but reverted`, { details: { txHash: tx.hash } });
        return tx;
      };
      return { hash: row.tx_hash!, nonce: Number(row.tx_nonce), purpose: row.purpose, wait, waitMined };
    } finally {
      inFlight -= 1;
    }
  }

  return {
    address: ctx.address,
    chain: ctx.chain,
    start: async () => undefined,
    nextNonce() {
      throw new AppError("INTERNAL", "only the sending daemon knows the operator's next nonce");
    },
    send,
    inFlight: () => inFlight,
    async drain(timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      while (inFlight > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      return inFlight === 0;
    },
    async stop() {
      stopped = true;
    },
  };
}

/**
 * The sending side, run by the elected sender: claims queued requests in order and sends each
 * through the daemon's own sender. Resumes claimed requests of an earlier sender first. With a
 * lease, each claim is made under its epoch, and serving ends once the lease is found lost.
 */
export function serveRelayedRequests(ctx: RelayContext, sender: TxSender, lease?: SenderLease) {
  const { db, settings, log } = ctx;
  let stopped = false;
  let loop: Promise<void> | undefined;

  /** queued -> claimed; with a lease, only while it is held under its epoch (the lease row locked meanwhile). */
  async function claim(id: string): Promise<boolean> {
    const set = { status: "claimed", sent_epoch: lease?.epoch ?? null, updated_at: ctx.clock() };
    if (!lease) return moveTxRequest(db, id, "queued", set);
    return ctx.work.write(async (trx) => {
      if (!(await lockLease(trx, lease.key, lease.holder, lease.epoch))) {
        stopped = true;
        log.warn({ epoch: lease.epoch }, "the operator sender's lease was lost: no longer serving relayed transactions");
        return false;
      }
      return moveTxRequest(trx, id, "queued", set);
    });
  }

  /** Claims of earlier epochs (their claimers' leases are gone: nobody else can sign them now). */
  async function resumeClaimed(): Promise<void> {
    for (const row of await txRequestsIn(db, "claimed", 1_000)) {
      if (lease && row.sent_epoch === lease.epoch) continue;
      const signed = await journalOfRequest(db, ctx.chain, row.id);
      const now = ctx.clock();
      const from = row.sent_epoch ?? undefined;
      if (signed) await moveTxRequest(db, row.id, "claimed", { status: "sent", tx_hash: signed.hash, tx_nonce: signed.nonce, updated_at: now }, from);
      else await moveTxRequest(db, row.id, "claimed", { status: "queued", sent_epoch: null, updated_at: now }, from);
    }
  }

  async function serve(row: TxRequestRow): Promise<void> {
    if (!(await claim(row.id))) return;
    const epoch = lease?.epoch;
    try {
      const sent = await sender.send({
        to: row.to, data: row.data, value: row.value === null ? undefined : BigInt(row.value),
        gasLimit: row.gas_limit === null ? undefined : BigInt(row.gas_limit), purpose: row.purpose, requestId: row.id,
      });
      await moveTxRequest(db, row.id, "claimed", { status: "sent", tx_hash: sent.hash, tx_nonce: sent.nonce, updated_at: ctx.clock() }, epoch);
    } catch (err) {
      if (isSenderFenced(err)) {
        // Never signed: queued again for the next sender (unless it already took it over).
        stopped = true;
        await moveTxRequest(db, row.id, "claimed", { status: "queued", sent_epoch: null, updated_at: ctx.clock() }, epoch);
        return;
      }
      const e = asAppError(err);
      const error = JSON.stringify({ code: e.code, message: e.message, details: e.details, retryable: e.retryable });
      await moveTxRequest(db, row.id, "claimed", { status: "failed", error, updated_at: ctx.clock() }, epoch);
    }
  }

  async function run(): Promise<void> {
    await resumeClaimed();
    let lastPrune = 0;
    while (!stopped) {
      try {
        const queued = await txRequestsIn(db, "queued", 50);
        for (const row of queued) {
          if (stopped) break;
          await serve(row);
        }
        if (ctx.clock() - lastPrune > 3_600_000) {
          lastPrune = ctx.clock();
          await pruneTxRequests(db, lastPrune - 86_400_000);
        }
        if (queued.length === 0) await sleep(settings.pollMs, ctx.wake);
      } catch (err) {
        log.warn({ err }, "serving relayed operator transactions failed; retrying");
        await sleep(settings.pollMs * 10);
      }
    }
  }

  return {
    start(): void {
      loop ??= run();
    },
    async stop(): Promise<void> {
      stopped = true;
      await loop;
    },
  };
}
