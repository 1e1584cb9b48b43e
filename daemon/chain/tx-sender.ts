// The one path by which operator transactions leave the daemon. A serialized queue simulates each
// transaction (estimateGas, or an eth_call when it brings its gas limit; a revert is decoded into
// AppError before anything is signed; the embedded chain skips the eth_call), assigns
// the next nonce from its own counter, signs and writes the signed bytes to the journal (in one
// transaction that checks the sender's lease, when daemons share the database), and broadcasts;
// flights then wait for receipts, re-price stuck transactions under the same nonce, and settle the
// journal. At its start (after a restart, or each time a daemon becomes the sender: a new sender
// every time) it resumes its nonce from the node's pending count and the shared journal's unsettled
// rows, whoever signed them, and settles those (rebroadcasting the signed bytes when the node lost them).
import { AppError } from "../errors.js";
import { withRetry } from "../lib/retry.js";
import { unsettledJournal } from "../db/chain-repo.js";
import { toAppError } from "./chain-errors.js";
import { currentFees } from "./tx-fees.js";
import {
  broadcast, checkFlight, isSenderFenced, journalAttempt, markFailed, newFlight, senderFenced,
} from "./tx-flight.js";
import type { ConfirmedTx, Flight, SenderContext, TxSenderSettings } from "./tx-flight.js";
import { read } from "./tx.js";

export type { ConfirmedTx, SenderLease, TxSenderSettings } from "./tx-flight.js";

export interface SendRequest {
  /** Null or absent: a contract creation. */
  to?: string | null;
  data?: string;
  value?: bigint;
  /** Skips the estimate's headroom; the simulation still runs. */
  gasLimit?: bigint;
  /** Only for callers that predicted addresses from it: must equal the sender's next nonce. */
  nonce?: number;
  /** What the journal calls it: the contract function, or "deploy:<Contract>". */
  purpose: string;
  /** The tx_requests row it came in by, when another daemon handed it over (tx-relay.ts). */
  requestId?: string;
}

export interface SentTx {
  hash: string;
  nonce: number;
  purpose: string;
  /** The mined transaction (after any re-pricing); rejects with AppError when it reverted or timed out. */
  wait(timeoutMs?: number): Promise<ConfirmedTx>;
  /** Like wait(), but a reverted transaction resolves too (receipt.status 0). */
  waitMined(timeoutMs?: number): Promise<ConfirmedTx>;
}

export interface TxSender {
  readonly address: string;
  readonly chain: string;
  /** Resumes the nonce and the unsettled journal; call once before send(). */
  start(): Promise<void>;
  nextNonce(): number;
  send(req: SendRequest): Promise<SentTx>;
  /** Nonces broadcast and not yet settled. */
  inFlight(): number;
  /** Waits until nothing is in flight; false on timeout. */
  drain(timeoutMs: number): Promise<boolean>;
  stop(): Promise<void>;
}

export const DEFAULT_SENDER_SETTINGS: TxSenderSettings = {
  confirmTimeoutMs: 120_000,
  bumpAfterMs: 30_000,
  bumpPercent: 25,
  pollMs: 1_000,
  takenGraceMs: 15_000,
  gasHeadroomPercent: 20,
  simulateWithGasLimit: true,
  readAttempts: 3,
  readRetryMs: 250,
};

const min = (a: bigint, b: bigint) => (a < b ? a : b);

function timeout<T>(p: Promise<T>, ms: number, f: Flight, hash: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new AppError("CHAIN_UNAVAILABLE", `transaction ${hash} not mined within ${ms} ms`, {
      retryable: true, details: { txHash: hash, nonce: f.nonce },
    })), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

export function createTxSender(ctx: SenderContext): TxSender {
  const address = ctx.wallet.address;
  const flights = new Map<number, Flight>();
  let next: number | undefined;
  let queue: Promise<unknown> = Promise.resolve();
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let ticking: Promise<void> | undefined;
  let again = false;
  /** Its lease was found lost: it signs nothing more (its flights still settle) until it is replaced. */
  let fenced = false;
  const noteFenced = (e: unknown) => {
    if (!isSenderFenced(e) || fenced) return;
    fenced = true;
    ctx.log.warn({ epoch: ctx.lease?.epoch }, "the operator sender's lease was lost: this sender signs nothing more");
  };

  const handle = (f: Flight): SentTx => {
    const hash = f.rows[0]!.hash;
    const waitMined = (ms = ctx.settings.confirmTimeoutMs) => timeout(f.done, ms, f, hash);
    const wait = async (ms?: number) => {
      const tx = await waitMined(ms);
      if (tx.reverted) {
        throw new AppError("INTERNAL", `${f.purpose}: transaction ${tx.hash} was mined but reverted`, { details: { txHash: tx.hash } });
      }
      return tx;
    };
    return { hash, nonce: f.nonce, purpose: f.purpose, wait, waitMined };
  };

  async function tickOnce(): Promise<void> {
    do {
      again = false;
      if (flights.size === 0 || stopped) return;
      const latestNonce = await ctx.provider.getTransactionCount(address, "latest");
      for (const f of [...flights.values()].sort((a, b) => a.nonce - b.nonce)) {
        if (stopped) return;
        if (await checkFlight(ctx, f, latestNonce, !fenced)) flights.delete(f.nonce);
      }
    } while (again);
  }

  function poke(): void {
    if (ticking) {
      again = true;
      return;
    }
    clearTimeout(timer);
    ticking = tickOnce()
      .catch((e: unknown) => {
        noteFenced(e);
        ctx.log.warn({ err: e }, "checking operator transactions failed; retrying");
      })
      .finally(() => {
        ticking = undefined;
        if (stopped || flights.size === 0) return;
        if (again) poke(); // a send arrived as the last look ended
        else timer = setTimeout(poke, ctx.settings.pollMs).unref();
      });
  }

  /** A read before signing: a timeout or a 5xx from the node is tried again; a revert is not. */
  const retrying = <T>(fn: () => Promise<T>): Promise<T> =>
    withRetry(fn, {
      attempts: ctx.settings.readAttempts, baseDelayMs: ctx.settings.readRetryMs,
      onRetry: (e, attempt) => ctx.log.debug({ err: (e as Error).message, attempt }, "chain read failed; retrying"),
    });

  async function simulate(req: SendRequest): Promise<bigint> {
    const call = { from: address, to: req.to ?? undefined, data: req.data ?? "0x", value: req.value ?? 0n };
    try {
      // With a gas limit given, an eth_call is simulation enough (estimateGas runs the call a dozen times).
      if (req.gasLimit !== undefined) {
        // A revert is then seen in the receipt (wait() rejects) instead of before signing.
        if (ctx.settings.simulateWithGasLimit) await ctx.provider.call({ ...call, gasLimit: req.gasLimit });
        return req.gasLimit;
      }
      return await ctx.provider.estimateGas(call);
    } catch (e) {
      throw toAppError(e, req.purpose);
    }
  }

  async function submit(req: SendRequest, retried = false): Promise<SentTx> {
    if (stopped) throw new AppError("CHAIN_UNAVAILABLE", "the transaction sender is stopped", { retryable: true });
    if (fenced && ctx.lease) throw senderFenced(ctx.lease, req.purpose);
    if (next === undefined) throw new AppError("INTERNAL", "the transaction sender was not started");
    if (req.nonce !== undefined && req.nonce !== next) {
      throw new AppError("INTERNAL", `${req.purpose}: nonce ${req.nonce} requested, the operator's next nonce is ${next}`);
    }
    const estimate = await retrying(() => simulate(req));
    const { fees, blockGasLimit } = await retrying(() => read("read fees", () => currentFees(ctx.provider)));
    const gasLimit = req.gasLimit ?? min((estimate * BigInt(100 + ctx.settings.gasHeadroomPercent)) / 100n, blockGasLimit);
    const nonce = next;
    const fields = { to: req.to ?? null, data: req.data ?? "0x", value: req.value ?? 0n, gasLimit, nonce };
    const row = await journalAttempt(ctx, fields, fees, req.purpose, null, req.requestId ?? null).catch((e: unknown) => {
      noteFenced(e);
      throw e;
    });
    next = nonce + 1;
    const outcome = await broadcast(ctx, row);
    if (outcome === "nonce-used" || typeof outcome === "object") {
      await markFailed(ctx, row, outcome === "nonce-used" ? "nonce already used" : outcome.rejected);
      next = nonce; // nothing after it was assigned: the queue is serialized through the broadcast
      if (outcome !== "nonce-used") throw toAppError(outcome.rejected, req.purpose);
      // The key was used elsewhere: the counter follows the chain, and the transaction (never
      // broadcast under a live nonce) is signed again, once.
      const pending = await retrying(() => read("read nonce", () => ctx.provider.getTransactionCount(address, "pending")));
      ctx.log.warn({ nonce, pending }, "operator nonce already used; resynchronised from the chain");
      next = Math.max(pending, nonce + 1);
      if (retried) throw new AppError("CHAIN_UNAVAILABLE", `${req.purpose}: operator nonce ${nonce} was already used`, { retryable: true });
      return submit({ ...req, nonce: undefined }, true);
    }
    const f = newFlight(nonce, req.purpose, [row], outcome === "in-doubt");
    flights.set(nonce, f);
    poke();
    return handle(f);
  }

  return {
    address,
    chain: ctx.chain,
    async start() {
      const rows = await unsettledJournal(ctx.store.db, ctx.chain);
      const pending = await retrying(() => read("read nonce", () => ctx.provider.getTransactionCount(address, "pending")));
      for (const row of rows) {
        const f = flights.get(row.nonce) ?? newFlight(row.nonce, row.purpose, [], true);
        f.rows.push(row);
        flights.set(row.nonce, f);
      }
      next = Math.max(pending, ...[...flights.keys()].map((n) => n + 1));
      if (rows.length > 0) ctx.log.info({ unsettled: rows.length, nextNonce: next }, "settling operator transactions from before the restart");
      poke();
    },
    nextNonce() {
      if (next === undefined) throw new AppError("INTERNAL", "the transaction sender was not started");
      return next;
    },
    send(req) {
      const run = queue.then(() => submit(req));
      queue = run.catch(() => {});
      return run;
    },
    inFlight: () => flights.size,
    async drain(timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      while (flights.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      return flights.size === 0;
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await queue;
      await ticking;
      for (const f of flights.values()) {
        f.reject(new AppError("CHAIN_UNAVAILABLE", "the daemon is stopping; the transaction is settled after the restart", { retryable: true }));
      }
      flights.clear();
    },
  };
}
