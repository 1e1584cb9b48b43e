// POST /info: Hyperliquid's read-only queries, answered from the store in the real JSON shapes.
import { z } from "zod";
import { extraAgents } from "./agents.js";
import { buildBook } from "./engine/book.js";
import { markOf, type EngineCtx } from "./engine/context.js";
import { accountView, renderClearinghouse } from "./engine/margin.js";
import { openOrderWire } from "./engine/orders.js";
import { F, abs, exact } from "./num.js";
import type { Order } from "./types.js";
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
]);
type InfoRequest = z.infer<typeof InfoSchema>;

function frontendOrder(o: Order) {
  return {
    coin: o.coin, side: o.isBuy ? "B" : "A", limitPx: exact(o.limitPx), sz: exact(o.sz), oid: o.oid,
    timestamp: o.createdAt, triggerCondition: "N/A", isTrigger: false, triggerPx: "0", children: [],
    isPositionTpsl: false, reduceOnly: o.reduceOnly, orderType: "Limit", origSz: exact(o.origSz),
    tif: o.tif, cloid: o.cloid,
  };
}

function orderStatus(ctx: EngineCtx, user: string, oid: number | string) {
  const order = typeof oid === "number" ? ctx.repo.getOrder(oid) : ctx.repo.orderByCloid(user, oid);
  if (!order || order.user !== user) return { status: "unknownOid" };
  return { status: "order", order: { order: frontendOrder(order), status: order.status, statusTimestamp: order.statusAt } };
}

function l2Book(ctx: EngineCtx, coin: string) {
  const market = ctx.markets.byCoin(coin);
  if (!market) return null;
  const book = buildBook(markOf(ctx, market), market, ctx.cfg.book);
  const level = (l: { px: bigint; sz: bigint }) => ({ px: exact(l.px), sz: exact(l.sz), n: 1 });
  return { coin, time: ctx.now(), levels: [book.bids.map(level), book.asks.map(level)] };
}

function assetCtxs(ctx: EngineCtx) {
  const positions = ctx.repo.allPositions();
  return ctx.markets.all.map((m) => {
    const mark = exact(markOf(ctx, m));
    const book = buildBook(markOf(ctx, m), m, ctx.cfg.book);
    // Open interest: every position is against the sim, so count the longs plus the shorts / 2.
    const oi = positions.filter((p) => p.coin === m.name).reduce((acc, p) => acc + abs(p.szi), 0n) / 2n;
    return {
      funding: "0", openInterest: F.format(oi), prevDayPx: mark, dayNtlVlm: "0", premium: "0",
      oraclePx: mark, markPx: mark, midPx: mark, dayBaseVlm: "0",
      impactPxs: [exact(book.bids[0]?.px ?? 0n), exact(book.asks[0]?.px ?? 0n)],
    };
  });
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
      return renderClearinghouse(accountView(ctx.repo, ctx.markets, req.user, ctx.cfg.defaultLeverage), now);
    case "openOrders":
      return ctx.repo.openOrdersOf(req.user).reverse().map(openOrderWire);
    case "frontendOpenOrders":
      return ctx.repo.openOrdersOf(req.user).reverse().map(frontendOrder);
    case "userFills":
      return ctx.repo.recentFills(req.user);
    case "userFillsByTime":
      return ctx.repo.fillsFrom(req.user, req.startTime, req.endTime ?? undefined);
    case "orderStatus":
      return orderStatus(ctx, req.user, req.oid);
    case "l2Book":
      return l2Book(ctx, req.coin);
    case "extraAgents":
      return extraAgents(ctx.repo, req.user, now);
    case "userNonFundingLedgerUpdates":
      return ctx.repo.ledgerOf(req.user, req.startTime, req.endTime ?? undefined);
  }
}

/** Answers a parsed JSON body; throws WireError for unknown or malformed requests (HTTP 422). */
export function handleInfo(ctx: EngineCtx, body: unknown): unknown {
  const parsed = InfoSchema.safeParse(body);
  if (!parsed.success) throw new WireError(parsed.error.message);
  return answer(ctx, parsed.data);
}
