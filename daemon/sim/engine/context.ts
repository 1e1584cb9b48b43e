// What the engine's functions share: the store, the market list, configuration, the clock and the
// persisted id counters. Built once per started sim.
import { keccak256, toUtf8Bytes } from "ethers";
import type { MarketList } from "../markets.js";
import { F } from "../num.js";
import type { SimRepo } from "../store/repo.js";
import type { SimEvents } from "../sim-events.js";
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
}

export interface EngineCtx {
  repo: SimRepo;
  markets: MarketList;
  cfg: EngineConfig;
  /** Published after commit (see sim-events.ts): the WebSocket's user, trade and book channels read it. */
  events: SimEvents;
  now(): number;
  nextOid(): number;
  nextTid(): number;
}

// Order ids start above 2^32 so clients exercise the uint64 msgpack path when they cancel by oid.
const FIRST_OID = 40_000_000_000;
const FIRST_TID = 100_000_000_000_000;

export function createEngineCtx(repo: SimRepo, markets: MarketList, cfg: EngineConfig, now: () => number, events: SimEvents): EngineCtx {
  return {
    repo,
    markets,
    cfg,
    events,
    now,
    nextOid: () => repo.nextId("next_oid", FIRST_OID),
    nextTid: () => repo.nextId("next_tid", FIRST_TID),
  };
}

export function markOf(ctx: EngineCtx, market: Market): bigint {
  return ctx.repo.getMark(market.name) ?? F.parse(market.startPx);
}

/** A transaction-like hash for events that no signed action caused (maker fills, faucet credits). */
export function syntheticHash(label: string): string {
  return keccak256(toUtf8Bytes(`tradevault-sim:${label}`));
}
