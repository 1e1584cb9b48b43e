// A coin's leverage and margin type (updateLeverage), and moving USDC into or out of an isolated
// position (updateIsolatedMargin). Refusals are worded as the venue words them. The caller holds the
// transaction.
import { rescale } from "../../lib/decimal.js";
import { F, USD_DECIMALS, max } from "../num.js";
import type { UpdateIsolatedMarginAction, UpdateLeverageAction } from "../wire.js";
import type { Market } from "../types.js";
import type { EngineCtx } from "./context.js";
import { accountView, positionView, withdrawable, type PositionView } from "./margin.js";

/** Sets the user's leverage and margin type for one market; returns an error text when refused. */
export function updateLeverage(ctx: EngineCtx, user: string, action: UpdateLeverageAction): string | undefined {
  const market = ctx.markets.byAsset(action.asset);
  if (!market) return "Invalid asset.";
  if (action.leverage < 1 || action.leverage > market.maxLeverage) return "Invalid leverage value.";
  const wasCross = ctx.repo.isolatedMargin(user, market.name) === undefined;
  const open = openPosition(ctx, user, market);
  if (open) {
    if (wasCross !== action.isCross) return "Cannot switch leverage type with open position.";
    if (!wasCross && !backsLeverage(open, action.leverage)) {
      return "Isolated position does not have sufficient margin available to decrease leverage. To decrease leverage, add margin to the position.";
    }
  }
  ctx.repo.setLeverage(user, market.name, action.leverage);
  if (action.isCross) ctx.repo.clearIsolated(user, market.name);
  else if (wasCross) ctx.repo.setIsolatedMargin(user, market.name, 0n);
  return undefined;
}

/**
 * Adds (ntli > 0) or removes (ntli < 0) USD × 1e6 of an isolated position's margin. Adding draws on
 * what the cross balance could withdraw; removing must leave the position its transfer margin
 * requirement: max(initial margin at its leverage, 10% of its notional) (docs "Margining"). `isBuy`
 * names the side in a hedge mode the venue does not have yet: ignored, as the venue does.
 */
export function updateIsolatedMargin(ctx: EngineCtx, user: string, action: UpdateIsolatedMarginAction): string | undefined {
  const market = ctx.markets.byAsset(action.asset);
  if (!market) return "Invalid asset.";
  if (action.ntli === 0) return "Update to isolated margin cannot be zero.";
  const open = openPosition(ctx, user, market);
  if (!open) return "Cannot update margin for empty position.";
  if (open.isolated === null) return "Position does not use isolated margin.";
  const amount = rescale(BigInt(action.ntli), USD_DECIMALS, F.scale);
  if (amount > 0n && amount > withdrawable(accountView(ctx.repo, ctx.markets, user, ctx.cfg.defaultLeverage))) {
    return "Account does not have sufficient margin available for increase.";
  }
  if (amount < 0n && open.marginUsed + amount < transferRequirement(open, open.leverage)) {
    return "Position does not have sufficient margin for reduction.";
  }
  ctx.repo.setIsolatedMargin(user, market.name, open.isolated + amount);
  ctx.repo.setUsdc(user, ctx.repo.getAccount(user)!.usdc - amount);
  return undefined;
}

function openPosition(ctx: EngineCtx, user: string, market: Market): PositionView | undefined {
  const pos = ctx.repo.getPosition(user, market.name);
  return pos.szi === 0n ? undefined : positionView(ctx.repo, ctx.markets, pos, ctx.cfg.defaultLeverage);
}

/** What an isolated position must keep at `leverage` when margin leaves it. */
function transferRequirement(p: PositionView, leverage: number): bigint {
  return max(p.ntl / BigInt(leverage), p.ntl / 10n);
}

/** Raising leverage is always allowed; lowering it needs margin (with uPnL) for the initial margin at the new one. */
function backsLeverage(p: PositionView, leverage: number): boolean {
  return leverage >= p.leverage || p.marginUsed >= p.ntl / BigInt(leverage);
}
