// Refusals that say where a vault stands against its limits and what its parties can do: a bare
// "paused" or "NotRecovered" leaves a trader with exposure and no way forward. The steps are data
// (AppError `next`); the HTTP layer says them in the asker's words.
import type { VaultRow } from "../db/schema-chain.js";
import { AppError } from "../errors.js";
import { breachPolicyRule } from "./breach-policies.js";
import { breached } from "./vault-math.js";
import { drawdownFigures } from "./vault-views.js";
import type { EscrowStanding } from "./vault-settlement.js";

/** Each drawdown against its limit, in percent, at the vault's last reading. */
function standing(v: VaultRow) {
  const figures = drawdownFigures(v);
  const text = `drawdown ${figures.currentDrawdown}% (limit ${figures.maxDrawdown}%), daily drawdown ${figures.currentDailyDrawdown}% (limit ${figures.dailyDrawdown}%)`;
  return { figures, text };
}

/** An order refused because the vault is paused. */
export function pausedRefusal(v: VaultRow): AppError {
  const rule = breachPolicyRule(v.breach_policy);
  const { figures, text } = standing(v);
  const next = rule.reduceOnlyWhilePaused
    ? "only reduce-only orders are accepted until the trader unpauses"
    : "either party may close the vault, or the trader unpauses once the balance has recovered inside both limits";
  return new AppError("VAULT_PAUSED", `${rule.pausedRefusal} (breach policy ${rule.name}): ${text}; ${next}`, {
    details: { breachPolicy: rule.name, ...figures },
    next: [{ action: "closeVault", vault: v.address }, { action: "unpauseVault", vault: v.address }],
  });
}

const DAY_S = 86_400;

/** The next 00:00 UTC after `nowS`: when the contract's day (block.timestamp / 86400) turns. */
export const nextUtcMidnight = (nowS: number): number => (Math.floor(nowS / DAY_S) + 1) * DAY_S;

/** "5 h 12 min", "42 min", "30 s": how long until the reset, to the minute once it is a minute or more. */
function howLong(seconds: number): string {
  if (seconds < 60) return `${Math.max(0, seconds)} s`;
  const h = Math.floor(seconds / 3600);
  const min = Math.floor((seconds % 3600) / 60);
  return h > 0 ? `${h} h ${min} min` : `${min} min`;
}

/**
 * Unpause refused by the contract, at the fresh reading the daemon wrote first. A breached daily limit
 * clears by itself: the first reading of the next UTC day measures the day from the balance then.
 */
export function notRecovered(v: VaultRow, nowMs: number): AppError {
  const { figures, text } = standing(v);
  const current = BigInt(v.current_balance);
  const daily = breached(BigInt(v.day_start_balance), current, v.daily_drawdown_bps);
  const max = breached(BigInt(v.peak_balance), current, v.max_drawdown_bps);
  const next = [{ action: "closeVault" as const, vault: v.address }];
  if (!daily) {
    return new AppError("NOT_RECOVERED", `the balance has not recovered: ${text}; unpause once both are inside their limits, or close the vault`, {
      details: figures, next,
    });
  }
  const nowS = Math.floor(nowMs / 1000);
  const resetAt = nextUtcMidnight(nowS);
  const reset = `the daily limit's day resets at 00:00 UTC, next at ${new Date(resetAt * 1000).toISOString().replace(".000Z", "Z")} (in ${howLong(resetAt - nowS)})`;
  const then = max
    ? "but the drawdown from the peak must come back inside its limit too: unpause once it has, or close the vault"
    : "when the day starts again from the balance then: unpause after it, or close the vault";
  return new AppError("NOT_RECOVERED", `the balance has not recovered: ${text}; ${reset}, ${then}`, {
    details: { ...figures, dailyResetAt: resetAt }, next,
  });
}

/** The trader's withdraw while the escrow holds nothing of its share: what is owed and who funds it. */
export function escrowNotFunded(v: VaultRow, s: EscrowStanding): AppError {
  return new AppError("ESCROW_NOT_FUNDED",
    `the trader is owed ${s.owedToTrader} USDC but the escrow holds ${s.held}: the investor (${v.investor}) has not funded it yet; ` +
      "the investor funds it with a permit, then the trader withdraws", {
      details: { owed: s.owedToTrader, escrow: s.held, investor: v.investor },
      next: [{ action: "fundVault", vault: v.address, amount: s.toFund }],
    });
}
