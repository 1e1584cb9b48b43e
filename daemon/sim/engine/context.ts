// What the engine's functions share: the store, the market list, configuration, the clock and the
// persisted id counters. Built once per started sim.
import { keccak256, toUtf8Bytes } from "ethers";
import type { MarketList } from "../markets.js";
import { F } from "../num.js";
import type { SimRepo } from "../store/repo.js";
import type { SimEvent, SimEvents } from "../sim-events.js";
import type { Market } from "../types.js";
import type { BookConfig } from "./book.js";
import type { FeeSchedule } from "./fills.js";

export interface EngineConfig {
  fees: FeeSchedule;
  book: BookConfig;
  /** Cross leverage used until the user sets one (capped at the market's max). */
  defaultLeverage: number;
  /** Minimum order notional in USD (decimal text). */
  minOrderValueUsd: string;
  /**
   * Whether a reduce-only order for the whole position is exempt from the minimum (the venue's rule is
   * undocumented; docs/sim.md "Dust closes"). True by default; false models a venue that refuses dust.
   */
  dustClosesExempt: boolean;
  /** Hourly funding rate, a decimal fraction of notional ("0.0000125"); longs pay when positive. */
  fundingRate: string;
  /** Traded volume (USD, decimal text) an account needs before it may arm scheduleCancel. */
  scheduleCancelMinVolumeUsd: string;
}

export interface EngineCtx {
  repo: SimRepo;
  markets: MarketList;
  cfg: EngineConfig;
  /** Published after commit (see sim-events.ts): the WebSocket's user, trade and book channels read it. */
  events: SimEvents;
  /** The time a change is stamped with: after every account state already answered. */
  now(): number;
  /**
   * The time an account state is stamped with: at or after every change stamped so far. With now(),
   * a state at time T holds exactly the changes stamped at or before T, as the venue's block-timed
   * records do: a transfer in the same millisecond as a state read is never in the ledger by T but
   * missing from the state.
   */
  stateTime(): number;
  nextOid(): number;
  nextTid(): number;
  /** Queues an event for publication once the current transaction commits. */
  emit(event: SimEvent): void;
  /** Runs `fn` in one transaction, then publishes what it emitted; a rollback publishes nothing. */
  tx<T>(fn: () => T): T;
}

// Order ids start above 2^32 so clients exercise the uint64 msgpack path when they cancel by oid.
const FIRST_OID = 40_000_000_000;
const FIRST_TID = 100_000_000_000_000;

export function createEngineCtx(repo: SimRepo, markets: MarketList, cfg: EngineConfig, now: () => number, events: SimEvents): EngineCtx {
  let pending: SimEvent[] = [];
  let depth = 0;
  let lastStamp = 0;
  let lastState = 0;
  let lastRaw = 0;
  /** The source clock; a clock set back (a test rewinding the sim) drops the marks with it. */
  const raw = () => {
    const t = now();
    if (t < lastRaw) lastStamp = lastState = 0;
    return (lastRaw = t);
  };
  return {
    repo,
    markets,
    cfg,
    events,
    now: () => (lastStamp = Math.max(raw(), lastState + 1, lastStamp)),
    stateTime: () => (lastState = Math.max(raw(), lastStamp, lastState)),
    nextOid: () => repo.nextId("next_oid", FIRST_OID),
    nextTid: () => repo.nextId("next_tid", FIRST_TID),
    emit: (event) => void pending.push(event),
    tx<T>(fn: () => T): T {
      // An inner call runs as part of the outer transaction, which publishes when it commits.
      if (depth > 0) return fn();
      pending = [];
      let result: T;
      depth++;
      try {
        result = repo.tx(fn);
      } catch (e) {
        pending = [];
        throw e;
      } finally {
        depth--;
      }
      const batch = coalesce(pending);
      pending = [];
      for (const event of batch) events.emit(event);
      return result;
    },
  };
}

/**
 * One message per user and channel per transaction, as the venue sends one per block: fills and
 * order updates of a user are merged, trades of a coin are merged, a coin's book is announced once.
 */
function coalesce(events: SimEvent[]): SimEvent[] {
  const out: SimEvent[] = [];
  const merged = new Map<string, SimEvent>();
  for (const e of events) {
    const key = e.kind === "fills" || e.kind === "orderUpdates" ? `${e.kind}:${e.user}`
      : e.kind === "trades" || e.kind === "book" ? `${e.kind}:${e.coin}` : undefined;
    const prev = key ? merged.get(key) : undefined;
    if (prev?.kind === "fills" && e.kind === "fills") prev.fills.push(...e.fills);
    else if (prev?.kind === "orderUpdates" && e.kind === "orderUpdates") prev.updates.push(...e.updates);
    else if (prev?.kind === "trades" && e.kind === "trades") prev.trades.push(...e.trades);
    else if (prev?.kind !== "book") {
      const copy = copyEvent(e);
      if (key) merged.set(key, copy);
      out.push(copy);
    }
  }
  // Book last: a subscriber that recomputes the book on it sees the state after every order change.
  return [...out.filter((e) => e.kind !== "book"), ...out.filter((e) => e.kind === "book")];
}

function copyEvent(e: SimEvent): SimEvent {
  if (e.kind === "fills") return { ...e, fills: [...e.fills] };
  if (e.kind === "orderUpdates") return { ...e, updates: [...e.updates] };
  if (e.kind === "trades") return { ...e, trades: [...e.trades] };
  return e;
}

export function markOf(ctx: EngineCtx, market: Market): bigint {
  return ctx.repo.getMark(market.name) ?? F.parse(market.startPx);
}

/** A transaction-like hash for events that no signed action caused (maker fills, faucet credits). */
export function syntheticHash(label: string): string {
  return keccak256(toUtf8Bytes(`tradevault-sim:${label}`));
}
