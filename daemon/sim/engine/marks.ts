// What happens when a mark price moves: resting orders the mark crossed fill as makers at their limit
// price (buy: mark <= limit, sell: mark >= limit), trigger orders the mark crossed fire (triggers.ts),
// then isolated positions whose own margin fell below their maintenance margin, and cross accounts
// whose value did, are liquidated at the mark. The caller holds the transaction.
import { F, abs, min, exact, usd } from "../num.js";
import type { Order } from "../types.js";
import { markOf, syntheticHash, type EngineCtx } from "./context.js";
import { applyFill } from "./fills.js";
import { accountView, type AccountView, type PositionView } from "./margin.js";
import { SIM_COUNTERPARTY, announceFill, announceOrder, changeOrder } from "./orders.js";
import { afterFill, settleTriggers } from "./triggers.js";

function crosses(o: Order, mark: bigint): boolean {
  return o.isBuy ? mark <= o.limitPx : mark >= o.limitPx;
}

/** Fills the crossed resting orders on `coin`; returns their oids. */
export function fillCrossedOrders(ctx: EngineCtx, coin: string, mark: bigint): number[] {
  const filled: number[] = [];
  for (const o of ctx.repo.openOrdersOn(coin)) {
    if (!crosses(o, mark)) continue;
    let sz = o.sz;
    if (o.reduceOnly) {
      const szi = ctx.repo.getPosition(o.user, coin).szi;
      if (szi === 0n || szi > 0n === o.isBuy) {
        changeOrder(ctx, o, o.sz, "reduceOnlyCanceled");
        continue;
      }
      sz = min(sz, abs(szi));
    }
    const tid = ctx.nextTid();
    const { record } = applyFill(ctx.repo, ctx.cfg.fees, tid, {
      user: o.user, coin, isBuy: o.isBuy, px: o.limitPx, sz, oid: o.oid, cloid: o.cloid,
      crossed: false, hash: syntheticHash(`fill:${tid}`), time: ctx.now(),
    });
    announceFill(ctx, o.user, record);
    afterFill(ctx, changeOrder(ctx, o, 0n, "filled"));
    filled.push(o.oid);
  }
  return filled;
}

/** What one liquidation closes: the cross positions together, or one isolated position alone. */
interface Liquidation {
  user: string;
  leverageType: "Cross" | "Isolated";
  positions: PositionView[];
  ntl: bigint;
  /** The value that fell below maintenance: the cross account's, or the isolated position's margin. */
  accountValue: bigint;
}

/** Closes one position at the mark with a LiquidationMarket order; its fill's `dir` names the liquidation ("Liquidated Cross Long"). */
function closeAtMark(ctx: EngineCtx, user: string, p: PositionView, leverageType: Liquidation["leverageType"], now: number): void {
  const oid = ctx.nextOid();
  const isBuy = p.pos.szi < 0n;
  const sz = abs(p.pos.szi);
  const order: Order = {
    oid, user, coin: p.pos.coin, isBuy, limitPx: p.mark, sz: 0n, origSz: sz, tif: "LiquidationMarket",
    reduceOnly: true, cloid: null, status: "filled", createdAt: now, statusAt: now,
  };
  ctx.repo.insertOrder(order);
  const tid = ctx.nextTid();
  const { record } = applyFill(ctx.repo, ctx.cfg.fees, tid, {
    user, coin: p.pos.coin, isBuy, px: p.mark, sz, oid, cloid: null, crossed: true,
    hash: syntheticHash(`liquidation:${tid}`), time: now,
    liquidation: { liquidatedUser: user, markPx: exact(p.mark), method: "market" },
    dir: `Liquidated ${leverageType} ${isBuy ? "Short" : "Long"}`,
  });
  announceFill(ctx, user, record);
  announceOrder(ctx, order, false);
}

function liquidate(ctx: EngineCtx, liq: Liquidation, orders: Order[]): void {
  const { user } = liq;
  const now = ctx.now();
  for (const o of orders) changeOrder(ctx, o, o.sz, "liquidatedCanceled");
  // One time for the liquidation: its fills and its ledger record carry the same.
  for (const p of liq.positions) closeAtMark(ctx, user, p, liq.leverageType, now);
  ctx.emit({
    kind: "userEvent",
    user,
    event: {
      liquidation: {
        lid: ctx.repo.nextId("next_lid", 1), liquidator: SIM_COUNTERPARTY, liquidated_user: user,
        liquidated_ntl_pos: usd(liq.ntl), liquidated_account_value: usd(liq.accountValue),
      },
    },
  });
  ctx.repo.insertLedger(user, {
    time: now,
    hash: syntheticHash(`liquidation:${user}:${liq.positions[0]!.pos.coin}:${now}`),
    delta: {
      type: "liquidation",
      liquidatedNtlPos: usd(liq.ntl),
      accountValue: usd(liq.accountValue),
      leverageType: liq.leverageType,
      liquidatedPositions: liq.positions.map((p) => ({ coin: p.pos.coin, szi: exact(p.pos.szi) })),
    },
  });
}

/** An isolated position below its maintenance margin: closed alone, and its loss stops at its own margin. */
function liquidateIsolated(ctx: EngineCtx, user: string, p: PositionView): void {
  const cross = ctx.repo.getAccount(user)!.usdc;
  const orders = ctx.repo.openOrdersOf(user).filter((o) => o.coin === p.pos.coin);
  liquidate(ctx, { user, leverageType: "Isolated", positions: [p], ntl: p.ntl, accountValue: p.marginUsed }, orders);
  // The close returned margin + PnL - fee to cross; a loss beyond the margin is the venue's, not cross's.
  if (ctx.repo.getAccount(user)!.usdc < cross) ctx.repo.setUsdc(user, cross);
}

/** The cross account below maintenance: every cross position closes; isolated ones are untouched. */
function liquidateCross(ctx: EngineCtx, view: AccountView): void {
  const { user } = view;
  const positions = view.positions.filter((p) => p.isolated === null);
  const isolatedCoins = new Set(view.positions.filter((p) => p.isolated !== null).map((p) => p.pos.coin));
  const orders = ctx.repo.openOrdersOf(user).filter((o) => !isolatedCoins.has(o.coin));
  liquidate(ctx, { user, leverageType: "Cross", positions, ntl: view.cross.ntl, accountValue: view.cross.accountValue }, orders);
  // A loss beyond the account's value is absorbed by the venue: the sim deleverages nobody by itself (POST /sim/adl does, on demand).
  if (ctx.repo.getAccount(user)!.usdc < 0n) ctx.repo.setUsdc(user, 0n);
}

/** Liquidates isolated positions below their own maintenance, then cross accounts below theirs; returns the users liquidated. */
export function liquidateUnderwater(ctx: EngineCtx): string[] {
  const liquidated: string[] = [];
  const viewOf = (user: string) => accountView(ctx.repo, ctx.markets, user, ctx.cfg.defaultLeverage);
  for (const user of ctx.repo.usersWithPositions()) {
    const before = viewOf(user);
    const underwater = before.positions.filter((p) => p.isolated !== null && p.marginUsed < p.maintenance);
    for (const p of underwater) liquidateIsolated(ctx, user, p);
    // An isolated liquidation may have returned margin to cross: look again.
    const view = underwater.length > 0 ? viewOf(user) : before;
    const crossUnderwater = view.positions.some((p) => p.isolated === null) && view.cross.accountValue < view.cross.maintenance;
    if (crossUnderwater) liquidateCross(ctx, view);
    if (underwater.length > 0 || crossUnderwater) liquidated.push(user);
  }
  return liquidated;
}

export interface MarkMoveResult {
  filledOids: number[];
  liquidated: string[];
}

/** Sets new marks (coin → price) and settles their consequences. */
export function moveMarks(ctx: EngineCtx, marks: ReadonlyMap<string, bigint>): MarkMoveResult {
  const filledOids: number[] = [];
  for (const [coin, px] of marks) {
    const market = ctx.markets.byCoin(coin);
    if (!market || px <= 0n) throw new RangeError(`bad mark ${coin} ${F.format(px)}`);
    if (ctx.repo.getMark(coin) !== px) ctx.emit({ kind: "book", coin });
    ctx.repo.setMark(coin, px, ctx.now());
    filledOids.push(...fillCrossedOrders(ctx, coin, markOf(ctx, market)));
    settleTriggers(ctx, market);
  }
  return { filledOids, liquidated: liquidateUnderwater(ctx) };
}
