// The account-changing actions other than placing orders: cancels, modify, and faucet credits
// (leverage and isolated margin: leverage.ts).
// The caller holds the transaction.
import { usd } from "../num.js";
import type { CancelAction, CancelByCloidAction, ModifyWire } from "../wire.js";
import type { Order } from "../types.js";
import { syntheticHash, type EngineCtx } from "./context.js";
import { changeOrder } from "./orders.js";
import { placeOrder, type OrderResult } from "./place.js";
import { cancelWaitingChildren } from "./triggers.js";

export type CancelResult = "success" | { error: string };

function cancelOne(ctx: EngineCtx, asset: number, order: Order | undefined, user: string): CancelResult {
  const market = ctx.markets.byAsset(asset);
  if (!order || order.user !== user || order.status !== "open" || order.coin !== market?.name) {
    return { error: `Order was never placed, already canceled, or filled. asset=${asset}` };
  }
  changeOrder(ctx, order, order.sz, "canceled");
  cancelWaitingChildren(ctx, order.oid);
  return "success";
}

export function cancelByOid(ctx: EngineCtx, user: string, action: CancelAction): CancelResult[] {
  return action.cancels.map((c) => cancelOne(ctx, c.a, ctx.repo.getOrder(c.o), user));
}

export function cancelByCloid(ctx: EngineCtx, user: string, action: CancelByCloidAction): CancelResult[] {
  return action.cancels.map((c) => cancelOne(ctx, c.asset, ctx.repo.orderByCloid(user, c.cloid), user));
}

/** The venue's modify: the old order is canceled and the new one placed with a new oid (and the cloid). */
export function modifyOrder(ctx: EngineCtx, user: string, m: ModifyWire, hash: string): OrderResult {
  const old = typeof m.oid === "number" ? ctx.repo.getOrder(m.oid) : ctx.repo.orderByCloid(user, m.oid);
  if (!old || old.user !== user || old.status !== "open") return { error: "Cannot modify canceled or filled order" };
  if (ctx.markets.byAsset(m.order.a)?.name !== old.coin) return { error: `Invalid asset. asset=${m.order.a}` };
  changeOrder(ctx, old, old.sz, "canceled");
  if (old.cloid) ctx.repo.clearCloid(old.oid);
  return placeOrder(ctx, user, m.order, hash);
}

/** Credits USDC (creating the account) and records it as a deposit in the ledger. */
export function creditUsdc(ctx: EngineCtx, user: string, amount: bigint): bigint {
  const now = ctx.now();
  const account = ctx.repo.getAccount(user) ?? ctx.repo.createAccount(user, now);
  const usdc = account.usdc + amount;
  ctx.repo.setUsdc(user, usdc);
  const seq = ctx.repo.nextId("next_deposit", 1);
  ctx.repo.insertLedger(user, {
    time: now,
    hash: syntheticHash(`deposit:${seq}`),
    delta: { type: "deposit", usdc: usd(amount) },
  });
  return usdc;
}
