// What happens when a mark price moves: resting orders the mark crossed fill as makers at their limit
// price (buy: mark <= limit, sell: mark >= limit), then accounts whose value fell below maintenance
// margin are liquidated at the mark. The caller holds the transaction.
import { F, abs, min, exact, usd } from "../num.js";
import type { Order } from "../types.js";
import { markOf, syntheticHash, type EngineCtx } from "./context.js";
import { applyFill } from "./fills.js";
import { accountView } from "./margin.js";
import { SIM_COUNTERPARTY, announceFill, announceOrder, changeOrder } from "./orders.js";

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
    changeOrder(ctx, o, 0n, "filled");
    filled.push(o.oid);
  }
  return filled;
}

/** Closes every position of `user` at the mark and cancels its orders (account value < maintenance). */
function liquidate(ctx: EngineCtx, user: string): void {
  const view = accountView(ctx.repo, ctx.markets, user, ctx.cfg.defaultLeverage);
  const now = ctx.now();
  for (const o of ctx.repo.openOrdersOf(user)) changeOrder(ctx, o, o.sz, "liquidatedCanceled");
  for (const p of view.positions) {
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
    });
    announceFill(ctx, user, record);
    announceOrder(ctx, order, false);
  }
  ctx.emit({
    kind: "userEvent",
    user,
    event: {
      liquidation: {
        lid: ctx.repo.nextId("next_lid", 1), liquidator: SIM_COUNTERPARTY, liquidated_user: user,
        liquidated_ntl_pos: usd(view.totalNtl), liquidated_account_value: usd(view.accountValue),
      },
    },
  });
  ctx.repo.insertLedger(user, {
    time: now,
    hash: syntheticHash(`liquidation:${user}:${now}`),
    delta: {
      type: "liquidation",
      liquidatedNtlPos: usd(view.totalNtl),
      accountValue: usd(view.accountValue),
      leverageType: "Cross",
      liquidatedPositions: view.positions.map((p) => ({ coin: p.pos.coin, szi: exact(p.pos.szi) })),
    },
  });
  // A loss beyond the account's value is absorbed by the venue (no auto-deleveraging in the sim).
  const account = ctx.repo.getAccount(user)!;
  if (account.usdc < 0n) ctx.repo.setUsdc(user, 0n);
}

/** Liquidates every account below maintenance margin; returns the users liquidated. */
export function liquidateUnderwater(ctx: EngineCtx): string[] {
  const liquidated: string[] = [];
  for (const user of ctx.repo.usersWithPositions()) {
    const view = accountView(ctx.repo, ctx.markets, user, ctx.cfg.defaultLeverage);
    if (view.accountValue >= view.maintenance) continue;
    liquidate(ctx, user);
    liquidated.push(user);
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
  }
  return { filledOids, liquidated: liquidateUnderwater(ctx) };
}
