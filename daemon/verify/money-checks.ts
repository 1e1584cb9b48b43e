// The two invariants that tie the vault's on-chain readings to the exchange's records: every reading
// is netted once (its record's account value less the transfers the exchange's ledger shows up to that
// moment), and at every flat point the reading equals the base plus what the fills and funding since
// it paid, to the micro-USDC.
import { formatDecimal, parseDecimal } from "../lib/decimal.js";
import { externalDelta } from "./external-transfers.js";
import type { ChainEvent, ChainRecords, DaemonRecords, ExchangeRecords, InvariantResult } from "./records.js";

type Reading = Extract<ChainEvent, { type: "BalanceUpdated" }>;
const usdc = (micro: bigint) => formatDecimal(micro, 6);
/** A time for people: ISO 8601, UTC, to the millisecond. */
export const iso = (ms: number) => new Date(ms).toISOString();
export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
/** Sums run at 12 decimals, so no venue figure is rounded before the comparison. */
const SCALE = 12;
const MICRO = 1_000_000n;

export function readingsOf(chain: ChainRecords): Reading[] {
  return chain.events.filter((e): e is Reading => e.type === "BalanceUpdated");
}

export function checkReadingsNetted(chain: ChainRecords, exchange: ExchangeRecords, daemon: DaemonRecords): InvariantResult {
  const base = { invariant: "readings-netted" as const };
  const records = new Map(daemon.readings.map((r) => [r.observedAt, r]));
  const from = (daemon.nettingFrom ?? 0) + 1;
  const readings = readingsOf(chain);
  const transfers = externalUpTo(exchange, chain.terms.exchangeAccount);
  for (const r of readings) {
    const rec = records.get(r.observedAt);
    const at = `the reading observed at ${iso(r.observedAt * 1000)}`;
    if (!rec) return { ...base, status: "broken", checked: readings.length, summary: "a reading on-chain has no record of what it was computed from", break: { what: at, expected: "the daemon's record of its account value and netting", actual: "none" } };
    const netting = transfers(rec.stateTime) - transfers(from - 1);
    if (netting !== rec.external) {
      return { ...base, status: "broken", checked: readings.length, summary: "a reading's netting differs from the exchange's ledger", break: { what: `${at}: external transfers after ${iso(from - 1)} up to ${iso(rec.stateTime)}`, expected: usdc(netting), actual: usdc(rec.external) } };
    }
    const value = parseDecimal(rec.accountValue, 6, "floor") - netting;
    const expected = value > 0n ? value : 0n;
    if (expected !== r.balance) {
      return { ...base, status: "broken", checked: readings.length, summary: "a reading on-chain is not its account value less its netting", break: { what: `${at}: account value ${rec.accountValue} less ${usdc(netting)}`, expected: usdc(expected), actual: usdc(r.balance) } };
    }
  }
  return { ...base, status: "holds", checked: readings.length, summary: `${plural(readings.length, "reading")}, each its account value less the transfers the ledger shows up to it` };
}

/** Net external micro-USDC of the ledger records up to and including a time: prefix sums. */
function externalUpTo(exchange: ExchangeRecords, account: string): (t: number) => bigint {
  const ledger = [...exchange.ledger].sort((a, b) => a.time - b.time);
  const times = ledger.map((l) => l.time);
  const prefix = [0n];
  for (const l of ledger) prefix.push(prefix.at(-1)! + externalDelta(l.delta, account));
  return (t) => prefix[after(times, t)]!;
}

/** Index of the first element whose time is > t (times sorted ascending). */
function after(times: readonly number[], t: number): number {
  let lo = 0;
  let hi = times.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (times[mid]! <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Whether the account was flat through a window, from the fills alone: no fill inside it, and no position open after the last one before it. */
function flatAt(fills: ExchangeRecords["fills"]): (fromMs: number, toMs: number) => boolean {
  const sorted = [...fills].sort((a, b) => a.time - b.time || a.tid - b.tid);
  const times = sorted.map((f) => f.time);
  const open: boolean[] = [];
  const size = new Map<string, bigint>();
  for (const f of sorted) {
    size.set(f.coin, (size.get(f.coin) ?? 0n) + parseDecimal(f.sz, 10) * (f.side === "B" ? 1n : -1n));
    open.push([...size.values()].some((x) => x !== 0n));
  }
  return (fromMs, toMs) => {
    const before = after(times, fromMs - 1); // fills at or after fromMs start here
    if (before < times.length && times[before]! <= toMs) return false;
    return before === 0 || !open[before - 1];
  };
}

/**
 * A liquidation that left the account below zero: the venue takes the loss past it (the account ends
 * at 0, not below), so the fills' closed PnL undercounts the account by that much. The ledger record
 * gives the account value when it was liquidated; the liquidation's fills, at its time, their fees.
 */
function absorbedLosses(exchange: ExchangeRecords): Array<{ time: number; amount: bigint }> {
  return exchange.ledger.filter((l) => l.delta.type === "liquidation" && typeof l.delta.accountValue === "string").flatMap((l) => {
    const coins = new Set(((l.delta.liquidatedPositions as Array<{ coin: string }> | undefined) ?? []).map((p) => p.coin));
    // The liquidation's fills: its coins', at its record's time (an entry a moment before is no part of it).
    const fees = exchange.fills.filter((f) => f.time === l.time && coins.has(f.coin)).reduce((sum, f) => sum + parseDecimal(f.fee, SCALE), 0n);
    const left = parseDecimal(l.delta.accountValue as string, SCALE) - fees;
    return left < 0n ? [{ time: l.time, amount: -left }] : [];
  });
}

/** What the fills, fees and funding paid the account in (fromMs, toMs], at SCALE decimals: prefix sums over time. */
function paidBetween(exchange: ExchangeRecords): (fromMs: number, toMs: number) => bigint {
  const flows = [
    ...exchange.fills.map((f) => ({ time: f.time, amount: parseDecimal(f.closedPnl, SCALE) - parseDecimal(f.fee, SCALE) })),
    ...exchange.funding.map((p) => ({ time: p.time, amount: parseDecimal(p.usdc, SCALE) })),
    ...absorbedLosses(exchange),
  ].sort((a, b) => a.time - b.time);
  const times = flows.map((f) => f.time);
  const prefix = [0n];
  for (const f of flows) prefix.push(prefix.at(-1)! + f.amount);
  return (fromMs, toMs) => prefix[after(times, toMs)]! - prefix[after(times, fromMs)]!;
}

/**
 * Flat points: with the daemon's records, a reading whose account state held no position, cut at that
 * state's time; from the chain alone, a reading with no fill within WINDOW_MS of its second and no
 * position before it. The base is the first reading when it is flat (it always is through the daemon,
 * for a vault that starts flat), else the first flat point: what lies between two flat points is
 * what the fills and funding paid, whichever pair.
 */
const WINDOW_MS = 2_000;

export function checkFlatPoints(chain: ChainRecords, exchange: ExchangeRecords, daemon?: DaemonRecords): InvariantResult {
  const base = { invariant: "flat-points" as const };
  const readings = readingsOf(chain);
  const records = new Map((daemon?.readings ?? []).map((r) => [r.observedAt, r]));
  const flatFills = flatAt(exchange.fills);
  const paid = paidBetween(exchange);
  const points = readings.map((r) => {
    const rec = records.get(r.observedAt);
    if (rec) return { r, flat: rec.flat && flatFills(rec.stateTime, rec.stateTime), at: rec.stateTime };
    const at = r.observedAt * 1000;
    return { r, flat: !daemon && flatFills(at - WINDOW_MS, at + WINDOW_MS), at };
  });
  if (points.length === 0) return { ...base, status: "not-checked", checked: 0, summary: "the vault has no reading yet" };
  const start = points.findIndex((p) => p.flat);
  const first = points[start];
  if (!first) return { ...base, status: "not-checked", checked: 0, summary: "no reading was taken while the account was flat" };
  let checked = 0;
  for (const p of points.slice(start + 1)) {
    if (!p.flat) continue;
    checked++;
    const expected = first.r.balance * MICRO + paid(first.at, p.at);
    const actual = p.r.balance * MICRO;
    // To the micro-USDC: the reading is the account value rounded down to 6 decimals.
    if (actual > expected || expected - actual >= MICRO) {
      return {
        ...base, status: "broken", checked, summary: "at a flat point the reading is not the base plus the fills' closed PnL less fees, plus funding",
        break: { what: `the reading observed at ${iso(p.r.observedAt * 1000)} (base ${usdc(first.r.balance)} at ${iso(first.r.observedAt * 1000)})`, expected: formatDecimal(expected, SCALE).replace(/0{6}$/, ""), actual: usdc(p.r.balance) },
      };
    }
  }
  const from = start === 0 ? "the first reading" : `the reading observed at ${iso(first.r.observedAt * 1000)}`;
  return { ...base, status: "holds", checked, summary: `${plural(checked, "flat point")} after ${from}, each equal to it plus the closed PnL less fees, plus funding` };
}
