// Per-user info answers beyond positions and open orders: order history, fees, funding, rate limits,
// role and account mode, referral and builder fees, in the venue's shapes.
import type { EngineCtx } from "./engine/context.js";
import { firesAbove } from "./engine/triggers.js";
import { F, exact } from "./num.js";
import type { Order } from "./types.js";

/** The venue's names: "Stop Market", "Take Profit Limit", ... ("Limit" for a plain order). */
function orderType(o: Order): string {
  if (!o.trigger) return "Limit";
  return `${o.trigger.tpsl === "tp" ? "Take Profit" : "Stop"} ${o.trigger.isMarket ? "Market" : "Limit"}`;
}

/** "Price above 3100" / "Price below 2900" while it waits; "Triggered" once it fired. */
function triggerCondition(o: Order): string {
  if (!o.trigger) return "N/A";
  if (o.trigger.state === "triggered") return "Triggered";
  return `Price ${firesAbove(o) ? "above" : "below"} ${F.format(o.trigger.px)}`;
}

/** frontendOpenOrders' element (also orderStatus' and historicalOrders' `order`); `children`: a normalTpsl entry's waiting TP/SLs. */
export function frontendOrder(o: Order, children: Order[] = []): Record<string, unknown> {
  const waiting = o.trigger && o.trigger.state !== "triggered";
  return {
    coin: o.coin, side: o.isBuy ? "B" : "A", limitPx: exact(o.limitPx), sz: exact(o.sz), oid: o.oid,
    timestamp: o.createdAt, triggerCondition: triggerCondition(o), isTrigger: o.trigger !== undefined,
    triggerPx: o.trigger ? exact(o.trigger.px) : "0.0", children: children.map((c) => frontendOrder(c)),
    isPositionTpsl: o.trigger?.positionTpsl ?? false, reduceOnly: o.reduceOnly, orderType: orderType(o),
    origSz: exact(o.origSz), tif: waiting ? null : o.tif, cloid: o.cloid,
  };
}

/** Open orders as openOrders lists them: a normalTpsl child shows only once its entry has filled. */
export function visibleOpenOrders(ctx: EngineCtx, user: string): Order[] {
  return ctx.repo.openOrdersOf(user).filter((o) => o.trigger?.state !== "waiting").reverse();
}

/** The entry's children that still wait for it (frontendOpenOrders shows them under the entry). */
export function waitingChildren(ctx: EngineCtx, o: Order): Order[] {
  return ctx.repo.childrenOf(o.oid).filter((c) => c.status === "open" && c.trigger?.state === "waiting");
}

export function frontendOpenOrders(ctx: EngineCtx, user: string) {
  return visibleOpenOrders(ctx, user).map((o) => frontendOrder(o, waitingChildren(ctx, o)));
}

export function historicalOrders(ctx: EngineCtx, user: string) {
  return ctx.repo.recentOrdersOf(user).map((o) => ({ order: frontendOrder(o), status: o.status, statusTimestamp: o.statusAt }));
}

/** The venue's base tier (no volume discount, no staking, no referral): what the sim charges. */
export function userFees(ctx: EngineCtx, user: string) {
  const { taker, maker } = ctx.cfg.fees;
  const rate = (r: string) => exact(F.parse(r));
  const day = new Date(ctx.now()).toISOString().slice(0, 10);
  return {
    dailyUserVlm: [{ date: day, userCross: exact(ctx.repo.volume(user)), userAdd: "0.0", exchange: "0.0" }],
    feeSchedule: {
      cross: rate(taker), add: rate(maker), spotCross: "0.0007", spotAdd: "0.0004",
      tiers: { vip: [], mm: [] }, referralDiscount: "0.04", stakingDiscountTiers: [],
    },
    userCrossRate: rate(taker), userAddRate: rate(maker), userSpotCrossRate: "0.0007", userSpotAddRate: "0.0004",
    activeReferralDiscount: "0.0", trial: null, feeTrialEscrow: "0.0", nextTrialAvailableTimestamp: null,
    stakingLink: null, activeStakingDiscount: { bpsOfMaxSupply: "0.0", discount: "0.0" },
  };
}

export function userFunding(ctx: EngineCtx, user: string, startTime: number, endTime?: number | null) {
  return ctx.repo.ledgerOf(user, startTime, endTime ?? undefined).filter((r) => r.delta.type === "funding");
}

export function nonFundingLedger(ctx: EngineCtx, user: string, startTime?: number, endTime?: number | null) {
  return ctx.repo.ledgerOf(user, startTime, endTime ?? undefined).filter((r) => r.delta.type !== "funding");
}

/** The venue's per-address budget: 10 000 requests plus one per USDC traded. */
export function userRateLimit(ctx: EngineCtx, user: string) {
  const vlm = ctx.repo.volume(user);
  return {
    cumVlm: exact(vlm), nRequestsUsed: Number(ctx.repo.getMeta(`requests:${user}`) ?? 0),
    nRequestsCap: 10_000 + Number(vlm / F.one), nRequestsSurplus: 0,
  };
}

export function userRole(ctx: EngineCtx, user: string, now: number) {
  if (ctx.repo.getAccount(user)) return { role: "user" };
  const agent = ctx.repo.getAgent(user);
  if (agent && agent.validUntil > now) return { role: "agent", data: { user: agent.user } };
  return { role: "missing" };
}

export function userAbstraction(ctx: EngineCtx, user: string): string {
  return ctx.repo.getMeta(`abstraction:${user}`) ?? "disabled";
}

export function referral(ctx: EngineCtx, user: string) {
  return {
    referredBy: null, cumVlm: exact(ctx.repo.volume(user)), unclaimedRewards: "0.0", claimedRewards: "0.0",
    builderRewards: "0.0", referrerState: { stage: "needToTrade", data: { required: "10000.0" } },
    rewardHistory: [], tokenToState: [],
  };
}
