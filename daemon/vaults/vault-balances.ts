// A vault's balance, from the exchange to the chain: read each vault's account (net of external
// transfers), write the readings on-chain in batches (the contract checks the limits and pauses),
// and record the vault's fills as trades. The vault service (the oracle's poll, a takeover, a refresh
// the trade gate asks for) calls down here; what a pause does to the vault's orders is its business
// (it gets the list back).
import type { Logger } from "pino";
import type { Executor, UnitOfWork } from "../db/store.js";
import type { VaultEventRow, VaultRow } from "../db/schema-chain.js";
import * as tradesRepo from "../db/vault-trades-repo.js";
import * as vaultsRepo from "../db/vaults-repo.js";
import { putReadings } from "../db/vault-readings-repo.js";
import { forcedFillData } from "../exchange/forced-fills.js";
import type { ExchangeAdapter, ReadOptions } from "../exchange/types.js";
import { mapLimit } from "../lib/map-limit.js";
import { withRetry } from "../lib/retry.js";
import { createBalanceReader, LEDGER_MAX_AGE_MS } from "./balance-reader.js";
import type { BalanceReading, VaultChainOps } from "./vault-chain.js";
import { appendDaemonEvent, type DaemonEventInput } from "./vault-events.js";
import type { VaultShare } from "./vault-share.js";

/**
 * Account reads in flight at once in one update: a takeover's or a large cycle's reads overlap their
 * round trips (the exchange's budget is the weight limiter's business, not this loop's).
 */
const READ_CONCURRENCY = 8;

/** Fills of a vault nobody traded are fetched this often (at the next cycle when it traded or its positions moved). */
export const FILLS_EVERY_MS = 5 * 60_000;

/**
 * The most vaults one daemon can read every `intervalMs` within `weightPerMinute` of the exchange's
 * request weight: the account state (2) every cycle, the ledger (20) and the fills (20) of a quiet
 * vault once in their periods. A vault that trades costs more (its fills every cycle it traded).
 */
export function oracleCapacity(intervalMs: number, weightPerMinute: number): number {
  const perVaultPerMinute = (2 * 60_000) / intervalMs + (20 * 60_000) / LEDGER_MAX_AGE_MS + (20 * 60_000) / FILLS_EVERY_MS;
  return Math.floor(weightPerMinute / perVaultPerMinute);
}

export interface BalancesDeps {
  db: Executor;
  work: UnitOfWork;
  exchange: ExchangeAdapter;
  chain: VaultChainOps;
  clock: () => number;
  log: Logger;
  /** Publishes stored events to live streams (after commit). */
  publish(rows: VaultEventRow[]): void;
  /** Tries per vault read when the exchange fails in a way worth retrying (default 2). */
  readAttempts?: number;
  readRetryDelayMs?: number;
}

export interface UpdateResult {
  /** Vaults whose balance was read (and written, unless a batch failed). */
  read: number;
  /** Vaults a reading paused on-chain in this update. */
  paused: VaultRow[];
  /** Errors of batches that did not go through (the others applied). */
  failures: unknown[];
}

export function createVaultBalances(deps: BalancesDeps) {
  const { db, work, exchange, chain, clock, log } = deps;
  /** Vaults with trading, or changed positions, since their fills were last read. */
  const active = new Set<string>();
  const fillsReadAt = new Map<string, number>();
  /** The second of the last reading this daemon sent for each vault. */
  const sentHere = new Map<string, number>();
  const reader = createBalanceReader(exchange, clock, { onPositionsChanged: (address) => active.add(address) });

  async function recordEvent(e: Omit<DaemonEventInput, "time">): Promise<void> {
    const row = await work.write((trx) => appendDaemonEvent(trx, { ...e, time: Math.floor(clock() / 1000) }, clock()));
    if (row) deps.publish([row]);
  }

  /** Consecutive vaults whose read failed: past a few the exchange looks down, and retrying each would only slow the cycle. */
  let failingInARow = 0;

  async function readOne(v: VaultRow, fresh: boolean): Promise<BalanceReading | undefined> {
    const opts: ReadOptions & { fresh?: boolean } = fresh ? { fresh: true, priority: "trading" } : { priority: "background" };
    try {
      const r = await withRetry(() => reader.read(v, opts), {
        attempts: failingInARow >= 3 ? 1 : (deps.readAttempts ?? 2), baseDelayMs: deps.readRetryDelayMs ?? 250,
        onRetry: (err) => log.debug({ vault: v.address, err: (err as Error).message }, "vault balance read failed; retrying"),
      });
      if (v.last_observed_at === null && r.balance !== BigInt(v.initial_balance)) {
        await recordEvent({ vault: v.address, type: "BalanceMismatch", data: { expected: v.initial_balance, observed: r.balance.toString() } });
      }
      failingInARow = 0;
      return r;
    } catch (err) {
      failingInARow += 1;
      log.warn({ vault: v.address, err: (err as Error).message }, "cannot read vault balance");
      return undefined;
    }
  }

  /**
   * Reads the vaults and writes their balances on-chain; a failed read skips only that vault.
   * `once`: a reading another daemon already stored for the same second with the same figures is
   * left to it (the oracle's own work, a new vault's first reading); without it the reading is sent
   * whatever, as a user's refresh needs (a close or an unpause must find its reading mined).
   */
  async function update(vaults: VaultRow[], opts: { fresh?: boolean; fence?: VaultShare["fence"]; once?: boolean } = {}): Promise<UpdateResult> {
    let readings = (await mapLimit(vaults, READ_CONCURRENCY, (v) => readOne(v, opts.fresh ?? false))).filter((r): r is BalanceReading => r !== undefined);
    if (opts.fence && readings.length > 0) {
      // A lease lost while reading: the vault's new holder writes it now, not this daemon.
      const kept = await opts.fence(readings.map((r) => r.vault));
      readings = readings.filter((r) => kept.has(r.vault));
    }
    if (readings.length === 0) return { read: 0, paused: [], failures: [] };
    // Before the send: a reading on-chain always has its record, whatever happens after.
    const stored = await work.write((trx) => putReadings(trx, readings.map((r) => ({ vault: r.vault, observedAt: r.observedAt, ...r.source }))));
    const read = readings.length;
    readings = readings.filter((r) => !stored.dropped.has(r.vault))
      .map((r) => (stored.moved.has(r.vault) ? { ...r, observedAt: stored.moved.get(r.vault)! } : r));
    if (opts.once) {
      // The same reading of the same second already stored by another daemon (a vault changing hands
      // as both read it, a new vault read by its holder and by the daemon that deployed it) is that
      // daemon's to send. This daemon's own earlier try of it (its transaction failed) is sent again.
      readings = readings.filter((r) => !stored.same.has(r.vault) || sentHere.get(r.vault) === r.observedAt);
    }
    if (readings.length === 0) return { read, paused: [], failures: [] };
    for (const r of readings) sentHere.set(r.vault, r.observedAt);
    const { paused, failures } = await chain.updateBalances(readings);
    const byAddress = new Map(vaults.map((v) => [v.address, v]));
    return { read, paused: paused.map((a) => byAddress.get(a)!).filter(Boolean), failures };
  }

  /**
   * Records the vault's new fills as trades, each with its Fill event, and a fill the venue forced
   * with its Liquidated or Deleveraged event too. The events are written only for trades the insert
   * added (keyed by account and fill id), so a re-read, a restart or a second daemon records nothing twice.
   */
  async function recordFills(v: VaultRow): Promise<void> {
    active.delete(v.address);
    fillsReadAt.set(v.address, clock());
    const since = Math.max(v.created_at * 1000, (await tradesRepo.lastSeq(db, v.address)).timeMs);
    const fills = (await exchange.fills(v.exchange_account, since, { priority: "background" })).filter((f) => f.time >= v.created_at * 1000);
    if (fills.length === 0) return;
    const byTid = new Map(fills.map((f) => [f.tid, f]));
    const events = await work.write(async (trx) => {
      const added = await tradesRepo.appendFills(trx, v.address, v.exchange_account, fills.map((f) => ({
        tid: f.tid, oid: f.oid, symbol: f.symbol, side: f.side, size: f.size, price: f.price, pnl: f.closedPnl, fee: f.fee, timeMs: f.time,
      })));
      const rows: VaultEventRow[] = [];
      const append = async (e: Omit<DaemonEventInput, "vault">) => {
        const row = await appendDaemonEvent(trx, { vault: v.address, ...e }, clock());
        if (row) rows.push(row);
      };
      for (const t of added) {
        const time = Math.floor(t.time_ms / 1000);
        const tradeId = String(t.id);
        await append({ type: "Fill", time, data: { tradeId, orderId: t.oid, symbol: t.symbol, side: t.side, size: t.size, price: t.price, pnl: t.pnl, fee: t.fee } });
        const fill = byTid.get(t.tid)!;
        if (fill.forced) await append({ type: fill.forced.kind === "liquidation" ? "Liquidated" : "Deleveraged", time, data: forcedFillData(fill, tradeId) });
      }
      return rows;
    });
    deps.publish(events);
  }

  /** Vaults whose order just filled, caught up one after another (`traded`). */
  const catchingUp = new Set<string>();
  let catchingUpNow = false;

  /** Each vault's new fills recorded and its account read, so the revaluation between polls starts from the new positions. */
  async function catchUp(): Promise<void> {
    try {
      for (const address of catchingUp) {
        catchingUp.delete(address);
        const v = await vaultsRepo.findVault(db, address);
        if (v) await Promise.all([recordFills(v), reader.read(v, { priority: "trading" })])
          .catch((err) => log.warn({ vault: address, err: (err as Error).message }, "cannot record the order's fills yet; the oracle will"));
      }
    } finally {
      catchingUpNow = false;
    }
  }

  return {
    update,
    recordFills,
    /** A vault order filled: its fills and account are read now, in the background, not at the next oracle cycle. */
    traded(address: string): void {
      active.add(address);
      catchingUp.add(address);
      if (catchingUpNow) return;
      catchingUpNow = true;
      void catchUp().catch((err) => log.warn({ err: (err as Error).message }, "cannot catch up traded vaults; the oracle will"));
    },
    recordEvent,
    /** The last read of the vault's account (what the revaluation between polls starts from). */
    snapshot: (address: string) => reader.snapshot(address),
    /** The pre-trade check's read: the vault's balance now, without writing it. */
    read: (v: VaultRow) => reader.read(v, { priority: "trading" }),
    /** A vault the trade path sends orders for: its fills are read at the next cycle. */
    markActive: (address: string) => void active.add(address),
    /** Whether a vault's fills are due: it traded or its positions moved, or the periodic sweep. */
    fillsDue: (address: string) => active.has(address) || clock() - (fillsReadAt.get(address) ?? 0) >= FILLS_EVERY_MS,
  };
}

export type VaultBalances = ReturnType<typeof createVaultBalances>;
