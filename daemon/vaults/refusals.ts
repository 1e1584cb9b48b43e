// Refusals that say where a vault stands against its limits and what its parties can do: a bare
// "paused" or "NotRecovered" leaves a trader with exposure and no way forward.
import type { VaultRow } from "../db/schema-chain.js";
import { AppError } from "../errors.js";
import { breachPolicyRule } from "./breach-policies.js";
import { drawdownFigures } from "./vault-views.js";

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
    : "either party may close the vault (POST /api/vaults/:address/close), or the trader unpauses once the balance has recovered inside both limits";
  return new AppError("VAULT_PAUSED", `${rule.pausedRefusal} (breach policy ${rule.name}): ${text}; ${next}`, {
    details: { breachPolicy: rule.name, ...figures },
  });
}

/** Unpause refused by the contract, at the fresh reading the daemon wrote first. */
export function notRecovered(v: VaultRow): AppError {
  const { figures, text } = standing(v);
  return new AppError("NOT_RECOVERED", `the balance has not recovered: ${text}; unpause once both are inside their limits, or close the vault`, {
    details: figures,
  });
}

/** The trader's withdraw while the escrow holds nothing of its share (decimal USDC): what is owed and who funds it. */
export function escrowNotFunded(v: VaultRow, owed: string, held: string): AppError {
  return new AppError("ESCROW_NOT_FUNDED",
    `the trader is owed ${owed} USDC but the escrow holds ${held}: the investor (${v.investor}) has not funded it yet; ` +
      "the investor funds it with a permit (POST /api/vaults/:address/fund), then the trader withdraws", {
      details: { owed, escrow: held, investor: v.investor },
    });
}
