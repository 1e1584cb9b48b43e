// Per-user info answers beyond positions and open orders: order history, fees, funding, rate limits,
// role and account mode, referral and builder fees, in the venue's shapes.
import type { EngineCtx } from "./engine/context.js";
import { F, exact } from "./num.js";
import type { Order } from "./types.js";

export function frontendOrder(o: Order) {
  return {
    coin: o.coin, side: o.isBuy ? "B" : "A", limitPx: exact(o.limitPx), sz: exact(o.sz), oid: o.oid,
    timestamp: o.createdAt, triggerCondition: "N/A", isTrigger: false, triggerPx: "0.0", children: [],
    isPositionTpsl: false, reduceOnly: o.reduceOnly, orderType: "Limit", origSz: exact(o.origSz),
    tif: o.tif, cloid: o.cloid,
  };
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
