// Warnings before a drawdown limit (LimitNear): a drawdown that reaches 80% of its limit is told, and
// again at 90%, each level once until the drawdown falls back below 70% of the limit. Decided for each
// reading the chain holds, as its BalanceUpdated is stored (vault-events.ts), in that transaction: a
// reading is stored once whichever daemon or path stores it, so each crossing is recorded once.
// Estimates between polls (vault-watch.ts) never warn: only a reading the contract judged does.
import type { VaultRow } from "../db/schema-chain.js";
import { limitDrawdowns } from "./vault-math.js";

export type LimitName = "max" | "daily";
export type WarningLevel = 80 | 90;

/** Levels in percent of the limit, highest first; a drawdown below REARM_BELOW% of it arms them again. */
const LEVELS: readonly WarningLevel[] = [90, 80];
const REARM_BELOW = 70;

export interface Crossing {
  /** The highest level told since the drawdown was last below REARM_BELOW% (0: none). */
  warned: number;
  /** The level to record now, if any. */
  level?: WarningLevel;
}

/**
 * One limit's rule at one reading, in the basis points the vault endpoints show (so a warning never
 * fires at a figure that reads below its level). `quiet`: the reading may re-arm but not warn (the
 * vault is paused, or this reading breaches and pauses it: the pause says more than a warning).
 * A reading past both levels records one event, at 90; 80 counts as told.
 */
export function crossing(warned: number, drawdownBps: number, limitBps: number, quiet: boolean): Crossing {
  if (limitBps <= 0) return { warned };
  const reached = (percent: number) => drawdownBps * 100 >= percent * limitBps;
  if (!reached(REARM_BELOW)) return { warned: 0 };
  if (quiet) return { warned };
  const level = LEVELS.find(reached);
  return level !== undefined && level > warned ? { warned: level, level } : { warned };
}

export interface LimitWarning {
  limit: LimitName;
  level: WarningLevel;
  drawdownBps: number;
  limitBps: number;
}

/**
 * What the vault's latest reading (already applied to `v`: balances new, paused and warned state as
 * before it) does to its warnings: the columns to write and the events to record.
 */
export function warningsAt(v: VaultRow): { change: Pick<VaultRow, "max_limit_warned" | "daily_limit_warned">; warnings: LimitWarning[] } {
  const { maxBps, dailyBps } = limitDrawdowns({ peak: BigInt(v.peak_balance), dayStart: BigInt(v.day_start_balance) }, BigInt(v.current_balance));
  const breaches = maxBps >= v.max_drawdown_bps || dailyBps >= v.daily_drawdown_bps;
  const quiet = v.paused === 1 || breaches;
  const max = crossing(v.max_limit_warned, maxBps, v.max_drawdown_bps, quiet);
  const daily = crossing(v.daily_limit_warned, dailyBps, v.daily_drawdown_bps, quiet);
  const warnings: LimitWarning[] = [];
  if (max.level) warnings.push({ limit: "max", level: max.level, drawdownBps: maxBps, limitBps: v.max_drawdown_bps });
  if (daily.level) warnings.push({ limit: "daily", level: daily.level, drawdownBps: dailyBps, limitBps: v.daily_drawdown_bps });
  return { change: { max_limit_warned: max.warned, daily_limit_warned: daily.warned }, warnings };
}

/** A warning as a stored event's data: basis points, as the contract's events (rendered in percent when read). */
export const warningData = (w: LimitWarning) => ({ limit: w.limit, level: w.level, drawdownBps: w.drawdownBps, limitPercentBps: w.limitBps });
