// Cross-margin account arithmetic: position value, unrealized PnL, margin used, maintenance margin,
// withdrawable and the liquidation price, plus Hyperliquid's clearinghouseState rendering.
// All positions are cross; maintenance margin = half the initial margin at max leverage.
import { F, abs, max, px, sign, usd, exact, wire } from "../num.js";
import type { MarketList } from "../markets.js";
import type { SimRepo } from "../store/repo.js";
import type { Market, Position } from "../types.js";

export interface PositionView {
  pos: Position;
  market: Market;
  mark: bigint;
  leverage: number;
  /** |szi| × mark */
  ntl: bigint;
  upnl: bigint;
  marginUsed: bigint;
  maintenance: bigint;
}

export interface AccountView {
  user: string;
  usdc: bigint;
  positions: PositionView[];
  accountValue: bigint;
  totalNtl: bigint;
  totalMarginUsed: bigint;
  maintenance: bigint;
  /** Initial margin held by resting orders that would open or grow a position. */
  orderMargin: bigint;
}

export function leverageOf(repo: SimRepo, user: string, market: Market, defaultLeverage: number): number {
  return repo.getLeverage(user, market.name) ?? Math.min(defaultLeverage, market.maxLeverage);
}

function positionView(repo: SimRepo, markets: MarketList, pos: Position, defaultLeverage: number): PositionView {
  const market = markets.byCoin(pos.coin)!;
  const mark = repo.getMark(pos.coin) ?? F.parse(market.startPx);
  const leverage = leverageOf(repo, pos.user, market, defaultLeverage);
  const ntl = F.mul(abs(pos.szi), mark, "half-up");
  const upnl = F.mul(pos.szi, mark, "half-up") - sign(pos.szi) * pos.entryNtl;
  const marginUsed = ntl / BigInt(leverage);
  const maintenance = ntl / BigInt(2 * market.maxLeverage);
  return { pos, market, mark, leverage, ntl, upnl, marginUsed, maintenance };
}

export function accountView(repo: SimRepo, markets: MarketList, user: string, defaultLeverage: number): AccountView {
  const usdc = repo.getAccount(user)?.usdc ?? 0n;
  const positions = repo.positionsOf(user).map((p) => positionView(repo, markets, p, defaultLeverage));
  const sum = (f: (p: PositionView) => bigint) => positions.reduce((acc, p) => acc + f(p), 0n);
  return {
    user,
    usdc,
    positions,
    accountValue: usdc + sum((p) => p.upnl),
    totalNtl: sum((p) => p.ntl),
    totalMarginUsed: sum((p) => p.marginUsed),
    maintenance: sum((p) => p.maintenance),
    orderMargin: orderMargin(repo, markets, user, defaultLeverage),
  };
}

/** Margin resting orders hold: limit notional / leverage (reduce-only orders hold none). */
function orderMargin(repo: SimRepo, markets: MarketList, user: string, defaultLeverage: number): bigint {
  let reserved = 0n;
  for (const o of repo.openOrdersOf(user)) {
    if (o.reduceOnly) continue;
    const lev = leverageOf(repo, user, markets.byCoin(o.coin)!, defaultLeverage);
    reserved += F.mul(o.sz, o.limitPx, "up") / BigInt(lev);
  }
  return reserved;
}

/**
 * Hyperliquid's documented formula (docs "Liquidations"):
 *   liq_price = price - side * margin_available / position_size / (1 - l * side)
 * side = 1 long / -1 short, l = 1 / maintenance leverage (= 1 / (2 × max leverage)),
 * margin_available = account_value - maintenance_margin_required (cross). Other positions are held
 * at their current marks. Null when the price would have to go to zero or below.
 */
export function liquidationPx(view: AccountView, p: PositionView): bigint | null {
  const side = sign(p.pos.szi);
  if (side === 0n) return null;
  const l = F.div(F.one, F.fromInt(2 * p.market.maxLeverage), "half-up");
  const marginAvailable = view.accountValue - view.maintenance;
  const perUnit = F.div(marginAvailable, abs(p.pos.szi), "half-up");
  const liq = p.mark - side * F.div(perUnit, F.one - side * l, "half-up");
  return liq > 0n ? liq : null;
}

/** What may leave the account: value above the margin positions and resting orders hold (and above 10% of the notional). */
export function withdrawable(view: AccountView): bigint {
  const locked = max(view.totalMarginUsed + view.orderMargin, view.totalNtl / 10n);
  return max(0n, view.accountValue - locked);
}

function cumFunding(repo: SimRepo, p: PositionView) {
  const t = repo.fundingTotals(p.pos.user, p.pos.coin);
  return { allTime: usd(t.allTime), sinceOpen: usd(t.sinceOpen), sinceChange: usd(t.sinceChange) };
}

function renderPosition(repo: SimRepo, view: AccountView, p: PositionView): unknown {
  const entryPx = F.div(p.pos.entryNtl, abs(p.pos.szi), "half-up");
  const initialMargin = p.pos.entryNtl / BigInt(p.leverage);
  const liq = liquidationPx(view, p);
  return {
    type: "oneWay",
    position: {
      coin: p.pos.coin,
      szi: exact(p.pos.szi),
      leverage: { type: "cross", value: p.leverage },
      entryPx: px(entryPx),
      positionValue: usd(p.ntl),
      unrealizedPnl: usd(p.upnl),
      returnOnEquity: initialMargin > 0n ? wire(F.format(F.div(p.upnl, initialMargin, "half-up"), 8)) : "0.0",
      liquidationPx: liq === null ? null : px(liq),
      marginUsed: usd(p.marginUsed),
      maxLeverage: p.market.maxLeverage,
      cumFunding: cumFunding(repo, p),
    },
  };
}

/** Hyperliquid's clearinghouseState body. */
export function renderClearinghouse(repo: SimRepo, view: AccountView, time: number): unknown {
  const signedNtl = view.positions.reduce((acc, p) => acc + F.mul(p.pos.szi, p.mark, "half-up"), 0n);
  const summary = {
    accountValue: usd(view.accountValue),
    totalNtlPos: usd(view.totalNtl),
    totalRawUsd: usd(view.accountValue - signedNtl),
    // The venue counts what resting orders hold as margin in use.
    totalMarginUsed: usd(view.totalMarginUsed + view.orderMargin),
  };
  return {
    marginSummary: summary,
    crossMarginSummary: summary,
    crossMaintenanceMarginUsed: usd(view.maintenance),
    withdrawable: usd(withdrawable(view)),
    assetPositions: view.positions.map((p) => renderPosition(repo, view, p)),
    time,
  };
}
