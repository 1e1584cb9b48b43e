// POST /info: Hyperliquid's read-only queries, answered from the store in the real JSON shapes.
import { z } from "zod";
import { extraAgents } from "./agents.js";
import { markOf, type EngineCtx } from "./engine/context.js";
import { accountView, renderClearinghouse } from "./engine/margin.js";
import { openOrderWire } from "./engine/orders.js";
import {
  frontendOpenOrders, frontendOrder, historicalOrders, visibleOpenOrders, waitingChildren, nonFundingLedger, referral, userAbstraction, userFees, userFunding, userRateLimit,
  userRole,
} from "./info-account.js";
import {
  INTERVALS, assetCtxs, candleSnapshot, fundingHistory, l2Book, spotClearinghouseState, spotMeta,
} from "./info-market.js";
import { UNMODELLED } from "./info-unmodelled.js";
import { exact } from "./num.js";
import { WireError } from "./wire.js";

const Address = z.string().regex(/^0[xX][0-9a-fA-F]{40}$/).transform((s) => s.toLowerCase());
const Time = z.int().nonnegative();
const Dex = z.string().optional();

const InfoSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("meta"), dex: Dex }),
  z.object({ type: z.literal("metaAndAssetCtxs"), dex: Dex }),
  z.object({ type: z.literal("allMids"), dex: Dex }),
  z.object({ type: z.literal("clearinghouseState"), user: Address, dex: Dex }),
  z.object({ type: z.literal("openOrders"), user: Address, dex: Dex }),
  z.object({ type: z.literal("frontendOpenOrders"), user: Address, dex: Dex }),
  z.object({ type: z.literal("userFills"), user: Address, aggregateByTime: z.boolean().optional() }),
  z.object({
    type: z.literal("userFillsByTime"), user: Address, startTime: Time, endTime: Time.nullish(),
    aggregateByTime: z.boolean().optional(),
  }),
  z.object({
    type: z.literal("orderStatus"), user: Address,
    oid: z.union([z.int().nonnegative(), z.string().regex(/^0[xX][0-9a-fA-F]{32}$/).transform((s) => s.toLowerCase())]),
  }),
  z.object({ type: z.literal("l2Book"), coin: z.string(), nSigFigs: z.int().nullish(), mantissa: z.int().nullish() }),
  z.object({ type: z.literal("extraAgents"), user: Address }),
  z.object({ type: z.literal("userNonFundingLedgerUpdates"), user: Address, startTime: Time.optional(), endTime: Time.nullish() }),
  z.object({ type: z.literal("spotMeta") }),
  z.object({ type: z.literal("spotMetaAndAssetCtxs") }),
  z.object({ type: z.literal("spotClearinghouseState"), user: Address, dex: Dex }),
  z.object({
    type: z.literal("candleSnapshot"),
    req: z.object({ coin: z.string(), interval: z.enum(Object.keys(INTERVALS) as [string, ...string[]]), startTime: Time, endTime: Time.nullish() }),
  }),
  z.object({ type: z.literal("historicalOrders"), user: Address }),
  z.object({ type: z.literal("userFees"), user: Address }),
  z.object({ type: z.literal("fundingHistory"), coin: z.string(), startTime: Time, endTime: Time.nullish() }),
  z.object({ type: z.literal("userFunding"), user: Address, startTime: Time, endTime: Time.nullish() }),
  z.object({ type: z.literal("userRateLimit"), user: Address }),
  z.object({ type: z.literal("userRole"), user: Address }),
  z.object({ type: z.literal("userAbstraction"), user: Address }),
  z.object({ type: z.literal("maxBuilderFee"), user: Address, builder: Address }),
  z.object({ type: z.literal("referral"), user: Address }),
  z.object({ type: z.literal("perpDexs") }),
  z.object({ type: z.literal("exchangeStatus") }),
]);
type InfoRequest = z.infer<typeof InfoSchema>;

function orderStatus(ctx: EngineCtx, user: string, oid: number | string) {
  const order = typeof oid === "number" ? ctx.repo.getOrder(oid) : ctx.repo.orderByCloid(user, oid);
  if (!order || order.user !== user) return { status: "unknownOid" };
  return { status: "order", order: { order: frontendOrder(order, waitingChildren(ctx, order)), status: order.status, statusTimestamp: order.statusAt } };
}

/** coin -> mid as allMids answers it (the sim's mid is the mark); the WebSocket's allMids sends the same. */
export function allMids(ctx: EngineCtx): Record<string, string> {
  return Object.fromEntries(ctx.markets.all.map((m) => [m.name, exact(markOf(ctx, m))]));
}

function answer(ctx: EngineCtx, req: InfoRequest): unknown {
  const now = ctx.now();
  switch (req.type) {
    case "meta":
      return ctx.markets.meta();
    case "metaAndAssetCtxs":
      return [ctx.markets.meta(), assetCtxs(ctx)];
    case "allMids":
      return allMids(ctx);
    case "clearinghouseState":
      return renderClearinghouse(ctx.repo, accountView(ctx.repo, ctx.markets, req.user, ctx.cfg.defaultLeverage), ctx.stateTime());
    case "openOrders":
      return visibleOpenOrders(ctx, req.user).map(openOrderWire);
    case "frontendOpenOrders":
      return frontendOpenOrders(ctx, req.user);
    case "userFills":
      return ctx.repo.recentFills(req.user);
    case "userFillsByTime":
      return ctx.repo.fillsFrom(req.user, req.startTime, req.endTime ?? undefined);
    case "orderStatus":
      return orderStatus(ctx, req.user, req.oid);
    case "l2Book":
      return l2Book(ctx, req.coin, req.nSigFigs, req.mantissa);
    case "extraAgents":
      return extraAgents(ctx.repo, req.user, now);
    case "userNonFundingLedgerUpdates":
      return nonFundingLedger(ctx, req.user, req.startTime, req.endTime);
    case "spotMeta":
      return spotMeta();
    case "spotMetaAndAssetCtxs":
      return [spotMeta(), []];
    case "spotClearinghouseState":
      return spotClearinghouseState(ctx, req.user);
    case "candleSnapshot":
      return candleSnapshot(ctx, req.req.coin, req.req.interval, req.req.startTime, req.req.endTime);
    case "historicalOrders":
      return historicalOrders(ctx, req.user);
    case "userFees":
      return userFees(ctx, req.user);
    case "fundingHistory":
      return fundingHistory(ctx, req.coin, req.startTime, req.endTime);
    case "userFunding":
      return userFunding(ctx, req.user, req.startTime, req.endTime);
    case "userRateLimit":
      return userRateLimit(ctx, req.user);
    case "userRole":
      return userRole(ctx, req.user, now);
    case "userAbstraction":
      return userAbstraction(ctx, req.user);
    case "maxBuilderFee":
      return 0; // no builder is approved on the sim
    case "referral":
      return referral(ctx, req.user);
    case "perpDexs":
      return [null]; // only the first perp dex; no builder-deployed dexes
    case "exchangeStatus":
      return { time: now, specialStatuses: null };
  }
}

/**
 * Answers a parsed JSON body. A type the venue knows but the sim does not model gets the venue's answer
 * for an account or market with nothing in it; only unknown types and malformed fields throw WireError
 * (HTTP 422, as the venue answers what it cannot deserialize).
 */
export function handleInfo(ctx: EngineCtx, body: unknown): unknown {
  const parsed = InfoSchema.safeParse(body);
  if (parsed.success) return answer(ctx, parsed.data);
  const type = (body as { type?: unknown } | null)?.type;
  if (typeof type === "string" && Object.hasOwn(UNMODELLED, type)) return UNMODELLED[type];
  throw new WireError(parsed.error.message);
}
