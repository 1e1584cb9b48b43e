// The vault contract's rules as docs/contracts.md states them, written again from that page and run
// over the chain's own events: the contract's decisions (every pause, every reading it measured) must
// come out the same. It never calls the contract.
import type { ChainEvent, VaultTermsRecord } from "./records.js";

const BPS = 10_000n;
const BREACH_BITS = 3;

export interface RiskState {
  balance: bigint;
  peak: bigint;
  dayStart: bigint;
  day: number;
  observedAt: number;
  paused: boolean;
  closed: boolean;
}

export function startState(t: VaultTermsRecord): RiskState {
  return { balance: t.initialBalance, peak: t.initialBalance, dayStart: t.initialBalance, day: Math.floor(t.createdAt / 86_400), observedAt: 0, paused: false, closed: false };
}

function drawdown(base: bigint, current: bigint, limitBps: number): { bps: number; breached: boolean } {
  if (current >= base) return { bps: 0, breached: false };
  const drop = (base - current) * BPS;
  return { bps: Number(drop / base), breached: drop >= BigInt(limitBps) * base };
}

/** Both drawdowns (bps, rounded down) and the breach bits (1 max, 2 daily) of a state. */
export function measure(s: RiskState, t: VaultTermsRecord): { drawdownBps: number; dailyDrawdownBps: number; breaches: number } {
  const max = drawdown(s.peak, s.balance, t.maxDrawdownBps);
  const daily = drawdown(s.dayStart, s.balance, t.dailyDrawdownBps);
  return { drawdownBps: max.bps, dailyDrawdownBps: daily.bps, breaches: (max.breached ? 1 : 0) | (daily.breached ? 2 : 0) };
}

/** A reading the contract applied in a block of UTC day `today`: the new state and whether it pauses. */
export function applyReading(s: RiskState, t: VaultTermsRecord, balance: bigint, observedAt: number, today: number) {
  const newDay = today !== s.day || s.observedAt === 0;
  const next: RiskState = {
    ...s, balance, observedAt,
    day: newDay ? today : s.day,
    dayStart: newDay ? balance : s.dayStart,
    peak: balance > s.peak ? balance : s.peak,
  };
  const m = measure(next, t);
  const pausing = m.breaches !== 0 && !s.paused;
  return { state: { ...next, paused: s.paused || pausing }, ...m, pausing };
}

/** Whether a Paused event may stand where it is: a breach's right after its reading, or the operator's (no breach bits) on an unpaused vault. */
export function pauseAllowed(s: RiskState, reason: number, pausedByReading: number | undefined): boolean {
  if (pausedByReading !== undefined) return reason === pausedByReading;
  return !s.paused && !s.closed && reason !== 0 && (reason & BREACH_BITS) === 0;
}

export function settlementOf(t: VaultTermsRecord, finalBalance: bigint) {
  const profit = finalBalance - t.initialBalance;
  const traderShare = profit > 0n ? (profit * BigInt(t.traderShareBps)) / BPS : 0n;
  return { finalBalance, profit, traderShare, investorShare: profit - traderShare };
}

/** What a withdraw pays `party` with `escrow` in the vault and `traderPaid` already paid to the trader. */
export function withdrawable(isTrader: boolean, traderShare: bigint, traderPaid: bigint, escrow: bigint): bigint {
  const unpaid = traderShare - traderPaid;
  if (isTrader) return unpaid < escrow ? unpaid : escrow;
  return escrow > unpaid ? escrow - unpaid : 0n;
}

export type { ChainEvent };
