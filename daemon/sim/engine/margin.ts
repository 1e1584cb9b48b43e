// Account margin arithmetic: position value, unrealized PnL, margin used, maintenance margin,
// withdrawable and the liquidation price. A position is cross (it shares the account's USDC with the
// other cross positions) or isolated (it holds its own margin, moved out of the cross balance, and
// nothing else backs it). Maintenance margin = half the initial margin at max leverage. Also
// Hyperliquid's clearinghouseState rendering.
import { F, abs, exact, max, px, sign, usd, wire } from "../num.js";
import type { MarketList } from "../markets.js";
import type { SimRepo } from "../store/repo.js";
import type { Market, Position } from "../types.js";

export interface PositionView {
  pos: Position;
  market: Market;
  mark: bigint;
  leverage: number;
  /** The isolated margin (without unrealized PnL); null for a cross position. */
  isolated: bigint | null;
  /** |szi| × mark */
  ntl: bigint;
  upnl: bigint;
  /** Cross: notional / leverage. Isolated: its margin plus its unrealized PnL (what backs it). */
  marginUsed: bigint;
  maintenance: bigint;
}

/** Sums over a set of positions. */
export interface MarginTotals {
  accountValue: bigint;
  ntl: bigint;
  /** Σ szi × mark */
  signedNtl: bigint;
  marginUsed: bigint;
  maintenance: bigint;
}

export interface AccountView {
  user: string;
  /** The cross balance: USDC not held by isolated positions. */
  usdc: bigint;
  positions: PositionView[];
  /** Every position (Hyperliquid's marginSummary). */
  all: MarginTotals;
  /** Cross positions and the cross balance only (crossMarginSummary): what cross liquidation looks at. */
  cross: MarginTotals;
  /** Initial margin held by resting orders that would open or grow a position (taken from cross). */
  orderMargin: bigint;
}

export function leverageOf(repo: SimRepo, user: string, market: Market, defaultLeverage: number): number {
  return repo.getLeverage(user, market.name) ?? Math.min(defaultLeverage, market.maxLeverage);
}

export function positionView(repo: SimRepo, markets: MarketList, pos: Position, defaultLeverage: number): PositionView {
  const market = markets.byCoin(pos.coin)!;
  const mark = repo.getMark(pos.coin) ?? F.parse(market.startPx);
  const leverage = leverageOf(repo, pos.user, market, defaultLeverage);
  const isolated = repo.isolatedMargin(pos.user, pos.coin) ?? null;
  const ntl = F.mul(abs(pos.szi), mark, "half-up");
  const upnl = F.mul(pos.szi, mark, "half-up") - sign(pos.szi) * pos.entryNtl;
  const marginUsed = isolated === null ? ntl / BigInt(leverage) : isolated + upnl;
  const maintenance = ntl / BigInt(2 * market.maxLeverage);
  return { pos, market, mark, leverage, isolated, ntl, upnl, marginUsed, maintenance };
}

function totals(base: bigint, positions: PositionView[]): MarginTotals {
  const sum = (f: (p: PositionView) => bigint) => positions.reduce((acc, p) => acc + f(p), 0n);
  return {
    // An isolated position adds what backs it (margin + uPnL); a cross one its uPnL on the shared balance.
    accountValue: base + sum((p) => (p.isolated === null ? p.upnl : p.marginUsed)),
    ntl: sum((p) => p.ntl),
    signedNtl: sum((p) => F.mul(p.pos.szi, p.mark, "half-up")),
    marginUsed: sum((p) => p.marginUsed),
    maintenance: sum((p) => p.maintenance),
  };
}

export function accountView(repo: SimRepo, markets: MarketList, user: string, defaultLeverage: number): AccountView {
  const usdc = repo.getAccount(user)?.usdc ?? 0n;
  const positions = repo.positionsOf(user).map((p) => positionView(repo, markets, p, defaultLeverage));
  return {
    user,
    usdc,
    positions,
    all: totals(usdc, positions),
    cross: totals(usdc, positions.filter((p) => p.isolated === null)),
    orderMargin: orderMargin(repo, markets, user, defaultLeverage),
  };
}

/** Margin resting orders hold: limit notional / leverage (reduce-only orders hold none). */
function orderMargin(repo: SimRepo, markets: MarketList, user: string, defaultLeverage: number): bigint {
  let reserved = 0n;
  for (const o of repo.openOrdersOf(user)) {
    // A trigger order holds no margin until it fires (its margin is checked then).
    if (o.reduceOnly || (o.trigger && o.trigger.state !== "triggered")) continue;
    const lev = leverageOf(repo, user, markets.byCoin(o.coin)!, defaultLeverage);
    reserved += F.mul(o.sz, o.limitPx, "up") / BigInt(lev);
  }
  return reserved;
}

/** Cross margin not yet committed to positions or resting orders: what new orders and isolated margin draw on. */
export function freeCrossMargin(view: AccountView): bigint {
  return view.cross.accountValue - view.cross.marginUsed - view.orderMargin;
}

/**
 * Hyperliquid's documented formula (docs "Liquidations"):
 *   liq_price = price - side * margin_available / position_size / (1 - l * side)
 * side = 1 long / -1 short, l = 1 / maintenance leverage (= 1 / (2 × max leverage)).
 * Cross: margin_available = cross account value - cross maintenance margin, other cross positions
 * held at their current marks. Isolated: margin_available = isolated margin (with its uPnL) - its
 * maintenance margin, whatever the cross account holds. Null when the price would have to go to
 * zero or below.
 */
export function liquidationPx(view: AccountView, p: PositionView): bigint | null {
  const side = sign(p.pos.szi);
  if (side === 0n) return null;
  const l = F.div(F.one, F.fromInt(2 * p.market.maxLeverage), "half-up");
  const marginAvailable = p.isolated === null
    ? view.cross.accountValue - view.cross.maintenance
    : p.marginUsed - p.maintenance;
  const perUnit = F.div(marginAvailable, abs(p.pos.szi), "half-up");
  const liq = p.mark - side * F.div(perUnit, F.one - side * l, "half-up");
  return liq > 0n ? liq : null;
}

/**
 * What may leave the cross balance: its value above the margin cross positions and resting orders
 * hold, and above 10% of the cross notional (the docs' transfer_margin_required).
 */
export function withdrawable(view: AccountView): bigint {
  const locked = max(view.cross.marginUsed + view.orderMargin, view.cross.ntl / 10n);
  return max(0n, view.cross.accountValue - locked);
}

function cumFunding(repo: SimRepo, p: PositionView) {
  const t = repo.fundingTotals(p.pos.user, p.pos.coin);
  return { allTime: usd(t.allTime), sinceOpen: usd(t.sinceOpen), sinceChange: usd(t.sinceChange) };
}

/** Isolated: rawUsd is the position's own USDC (its margin less the signed entry notional). */
function leverage(p: PositionView) {
  if (p.isolated === null) return { type: "cross", value: p.leverage };
  return { type: "isolated", value: p.leverage, rawUsd: usd(p.isolated - sign(p.pos.szi) * p.pos.entryNtl) };
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
      leverage: leverage(p),
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

function summary(t: MarginTotals, orderMargin: bigint) {
  return {
    accountValue: usd(t.accountValue),
    totalNtlPos: usd(t.ntl),
    totalRawUsd: usd(t.accountValue - t.signedNtl),
    // The venue counts what resting orders hold as margin in use.
    totalMarginUsed: usd(t.marginUsed + orderMargin),
  };
}

/** Hyperliquid's clearinghouseState body. */
export function renderClearinghouse(repo: SimRepo, view: AccountView, time: number): unknown {
  return {
    marginSummary: summary(view.all, view.orderMargin),
    crossMarginSummary: summary(view.cross, view.orderMargin),
    crossMaintenanceMarginUsed: usd(view.cross.maintenance),
    withdrawable: usd(withdrawable(view)),
    assetPositions: view.positions.map((p) => renderPosition(repo, view, p)),
    time,
  };
}
