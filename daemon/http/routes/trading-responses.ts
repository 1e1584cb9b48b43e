// The answers of the trading and agent routes (trading-routes.ts): SPEC's numbers (size, price, pnl)
// are JSON numbers, rendered from exact decimal text at the edge (render.ts).
import { z } from "zod";
import { position, typedDataFor, uintText, unixSeconds } from "../response-parts.js";

/** Hyperliquid's approveAgent, signed by the master key (GET /api/agent). */
export const approveAgentTypedData = typedDataFor("HyperliquidTransaction:ApproveAgent", {
  hyperliquidChain: z.enum(["Mainnet", "Testnet"]), agentAddress: z.string(), agentName: z.string(), nonce: uintText,
});

export const agentStatus = z.object({
  agentAddress: z.string(),
  approved: z.boolean(),
  validUntil: unixSeconds.nullable(),
  approval: z.object({ nonce: z.number().int(), typedData: approveAgentTypedData }).optional(),
});
export type AgentStatus = z.infer<typeof agentStatus>;

/** What an order filled at once, as the exchange answered its placement (no extra read: GET /api/orders/:orderId lists each fill). */
export const tradeFill = z.object({
  status: z.literal("filled").meta({ description: "nothing of the order rests: all of it filled, or (IOC, market) the rest was canceled" }),
  size: z.number().meta({ description: "the size filled; less than ordered when an IOC filled only in part" }),
  averagePrice: z.number().meta({ description: "size-weighted average price of the fills" }),
});
export type TradeFill = z.infer<typeof tradeFill>;

/** An entry's stop-loss or take-profit (trading/protection.ts). */
export const protection = z.object({
  kind: z.enum(["sl", "tp"]),
  price: z.number().meta({ description: "the trigger price" }),
  status: z.enum(["waitingForFill", "waitingForTrigger", "resting", "filled", "rejected", "unknown"]).meta({
    description: "waitingForFill: the entry rests, the child starts when it fills (no orderId yet); waitingForTrigger or resting: "
      + "armed (GET /api/orders lists it as a trigger order); rejected: the venue refused it (error); unknown: the answer was lost",
  }),
  orderId: z.number().int().optional(),
  error: z.string().optional(),
});

/** SPEC 2.5, and `fill`; the answer of POST /api/trade and POST /api/positions/close. */
export const tradeResult = z.object({
  orderId: z.number().int(),
  status: z.literal("submitted"),
  timestamp: z.number().int().meta({ description: "Unix milliseconds" }),
  fill: tradeFill.optional().meta({ description: "present when the order filled at once (a market order, a limit order that crossed and rests no more)" }),
  protection: z.array(protection).optional().meta({ description: "the entry's stopLoss and takeProfit as the exchange answered them" }),
});
export type TradeResult = z.infer<typeof tradeResult>;

export const openOrder = z.object({
  orderId: z.number().int(), symbol: z.string(), side: z.enum(["buy", "sell"]), size: z.number(), price: z.number(), status: z.literal("resting"),
  trigger: z.object({
    price: z.number().meta({ description: "the mark price that fires it" }),
    kind: z.enum(["sl", "tp"]),
    market: z.boolean(),
    triggered: z.boolean().meta({ description: "it has fired (a limit trigger then rests at price)" }),
  }).optional().meta({ description: "present on a stop-loss or take-profit order; status stays resting while it waits" }),
  protection: z.array(protection).optional().meta({ description: "a resting entry's stop-loss and take-profit, waiting for it to fill" }),
});
export const openOrders = z.object({ orders: z.array(openOrder) });
export type OpenOrders = z.infer<typeof openOrders>;

export const orderFill = z.object({
  price: z.number(), size: z.number(), fee: z.number(), closedPnl: z.number(),
  time: z.number().int().meta({ description: "Unix milliseconds" }), tradeId: z.number().int(),
});
export type OrderFill = z.infer<typeof orderFill>;

export const orderStatus = z.enum(["pending", "resting", "filled", "canceled", "rejected", "unknown"]);

export const oneOrder = z.object({
  order: z.object({
    orderId: z.number().int(), symbol: z.string(), side: z.enum(["buy", "sell"]),
    size: z.number(), remaining: z.number(), price: z.number(),
    status: orderStatus, exchangeStatus: z.string(), cloid: z.string().nullable(),
    timestamp: z.number().int().meta({ description: "Unix milliseconds" }), statusTimestamp: z.number().int(),
    fills: z.array(orderFill),
  }),
});
export type OneOrder = z.infer<typeof oneOrder>;

export const cancelResult = z.object({ orderId: z.number().int(), status: z.literal("canceled") });
export type CancelResult = z.infer<typeof cancelResult>;

export const positions = z.object({ positions: z.array(position) });

export const prices = z.object({
  prices: z.record(z.string(), z.string().meta({ description: "the mid price, a decimal string (exact, as the exchange gives it)" })),
});
export type Prices = z.infer<typeof prices>;
export type Positions = z.infer<typeof positions>;
