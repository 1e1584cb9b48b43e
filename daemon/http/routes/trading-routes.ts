// SPEC 4.5-4.9 and DESIGN section 6: trade, orders, cancel, positions, close, agent approval.
// Routes parse into typed values, call the order desk (agents for approval) and render SPEC's types (numbers from
// exact decimal strings, at this edge only).
import { z } from "zod";
import { toDecimalString } from "../../lib/decimal.js";
import type { AgentService, AgentStatus } from "../../trading/agent-service.js";
import type { ProtectionState } from "../../trading/protection.js";
import type { TradeResult } from "../../trading/trading-service.js";
import type { OrderDesk } from "../../vaults/order-desk.js";
import { num, renderPosition, seconds } from "../render.js";
import * as R from "./trading-responses.js";
import { defineRoute } from "../route.js";
import { address, decimalField, integerField, integerParam, numberOrString, signature } from "../schemas.js";

const decimal = decimalField(numberOrString().transform((v, ctx) => {
  try {
    return toDecimalString(v);
  } catch {
    ctx.addIssue({ code: "custom", message: "must be a decimal number" });
    return z.NEVER;
  }
})).meta({ description: "a JSON number, or a decimal string for exactness" });

const TIF = { GTC: "Gtc", IOC: "Ioc", ALO: "Alo" } as const;
const vaultQuery = z.object({ vaultAddress: address.optional() }).strict();
const orderIdParams = z.object({ orderId: integerParam(z.number().int().positive()) });
const idempotencyKey = (headers: Record<string, string | string[] | undefined>) => {
  const v = headers["idempotency-key"];
  return typeof v === "string" && v.length > 0 ? v.slice(0, 200) : undefined;
};
/** SPEC 2.5's keys, and beside them what filled at once, as the exchange answered the placement. */
const render = (r: TradeResult) => ({
  orderId: r.orderId, status: r.status, timestamp: r.timestamp,
  ...(r.filled ? { fill: { status: "filled" as const, size: num(r.filled.size), averagePrice: num(r.filled.averagePrice) } } : {}),
  ...(r.protection ? { protection: r.protection.map(renderProtection) } : {}),
});
const renderProtection = (p: ProtectionState) => ({ ...p, price: num(p.price) });
const protectionPrice = (what: string) => z.object({ price: decimal.meta({ description: `the mark price that fires the ${what}` }) }).strict();
/** validUntil in Unix seconds, like every timestamp but the trade result's. */
const agentView = (s: AgentStatus) => ({ ...s, validUntil: seconds(s.validUntil) });

export function tradingRoutes(deps: { desk: OrderDesk; agents: AgentService }) {
  const { desk, agents } = deps;
  return [
    defineRoute({
      method: "post", path: "/api/trade", tag: "trading", auth: true, limit: "orders",
      summary: "Place an order (market when price is omitted); header Idempotency-Key makes retries safe",
      body: z.object({
        symbol: z.string().min(1).max(32),
        side: z.enum(["buy", "sell"]),
        size: decimal,
        price: decimal.optional(),
        tif: z.enum(["GTC", "IOC", "ALO"]).optional(),
        reduceOnly: z.boolean().optional().meta({ description: "default false; true for a trigger order" }),
        vaultAddress: address.optional(),
        trigger: z.object({
          price: decimal.meta({ description: "the mark price that fires it" }),
          kind: z.enum(["sl", "tp"]).meta({ description: "stop-loss or take-profit (Hyperliquid's tpsl)" }),
          market: z.boolean().optional().meta({ description: "default true: fires as a market order within the slippage bound around the trigger price; false: a limit order at `price`" }),
        }).strict().optional().meta({ description: "makes it a stop-loss or take-profit order, resting untriggered until the mark crosses trigger.price" }),
        stopLoss: protectionPrice("stop-loss").optional().meta({
          description: "the entry's stop-loss: a reduce-only market trigger for its size on the other side, sent with it as one normalTpsl action; it starts once the entry fills",
        }),
        takeProfit: protectionPrice("take-profit").optional().meta({ description: "the entry's take-profit, as stopLoss" }),
      }).strict(),
      response: R.tradeResult,
      errors: ["INVALID_INPUT", "UNAUTHENTICATED", "FORBIDDEN", "NOT_FOUND", "VAULT_PAUSED", "VAULT_CLOSED", "DEAL_EXPIRED",
        "AGENT_NOT_APPROVED", "CONFLICT", "INSUFFICIENT_BALANCE", "ORDER_REJECTED", "RATE_LIMITED", "EXCHANGE_UNAVAILABLE", "BALANCE_STALE"],
      handler: async ({ body, user, ctx }) =>
        render(await desk.place(user.address, {
          symbol: body.symbol, side: body.side, size: body.size, price: body.price,
          tif: body.tif ? TIF[body.tif] : undefined, reduceOnly: body.reduceOnly ?? body.trigger !== undefined, vaultAddress: body.vaultAddress,
          trigger: body.trigger && { price: body.trigger.price, kind: body.trigger.kind, market: body.trigger.market ?? true },
          protection: body.stopLoss || body.takeProfit ? { stopLoss: body.stopLoss?.price, takeProfit: body.takeProfit?.price } : undefined,
        }, idempotencyKey(ctx.headers))),
    }),
    defineRoute({
      method: "get", path: "/api/orders", tag: "trading", auth: true, query: vaultQuery,
      summary: "Open orders of your account (or of a vault you trade)",
      response: R.openOrders,
      errors: ["UNAUTHENTICATED", "NOT_FOUND", "RATE_LIMITED", "EXCHANGE_UNAVAILABLE"],
      handler: async ({ query, user }) => ({
        orders: (await desk.openOrders(user.address, query.vaultAddress)).map(({ trigger, protection, ...o }) => ({
          ...o, size: num(o.size), price: num(o.price), ...(trigger ? { trigger: { ...trigger, price: num(trigger.price) } } : {}),
          ...(protection ? { protection: protection.map(renderProtection) } : {}),
        })),
      }),
    }),
    defineRoute({
      method: "get", path: "/api/orders/:orderId", tag: "trading", auth: true, params: orderIdParams, query: vaultQuery,
      summary: "One order with its status and fills",
      response: R.oneOrder,
      errors: ["INVALID_INPUT", "UNAUTHENTICATED", "NOT_FOUND", "RATE_LIMITED", "EXCHANGE_UNAVAILABLE"],
      handler: async ({ params, query, user }) => {
        const o = await desk.order(user.address, params.orderId, query.vaultAddress);
        return {
          order: {
            ...o, size: num(o.size), remaining: num(o.remaining), price: num(o.price),
            fills: o.fills.map((f) => ({ ...f, price: num(f.price), size: num(f.size), fee: num(f.fee), closedPnl: num(f.closedPnl) })),
          },
        };
      },
    }),
    defineRoute({
      method: "delete", path: "/api/orders/:orderId", tag: "trading", auth: true, limit: "orders", params: orderIdParams, query: vaultQuery,
      summary: "Cancel a resting order",
      response: R.cancelResult,
      errors: ["INVALID_INPUT", "UNAUTHENTICATED", "FORBIDDEN", "NOT_FOUND", "ORDER_NOT_OPEN", "VAULT_CLOSED", "AGENT_NOT_APPROVED", "RATE_LIMITED", "EXCHANGE_UNAVAILABLE"],
      handler: ({ params, query, user }) => desk.cancel(user.address, params.orderId, query.vaultAddress),
    }),
    defineRoute({
      method: "get", path: "/api/positions", tag: "trading", auth: true, query: vaultQuery,
      summary: "Open positions (size is signed: negative for shorts)",
      response: R.positions,
      errors: ["UNAUTHENTICATED", "NOT_FOUND", "RATE_LIMITED", "EXCHANGE_UNAVAILABLE"],
      handler: async ({ query, user }) => ({
        positions: (await desk.positions(user.address, query.vaultAddress)).map(renderPosition),
      }),
    }),
    defineRoute({
      method: "get", path: "/api/prices", tag: "trading", auth: true,
      summary: "Mid prices of every market the exchange lists, by symbol (on the sim: its marks as they move)",
      response: R.prices,
      errors: ["UNAUTHENTICATED", "RATE_LIMITED", "EXCHANGE_UNAVAILABLE"],
      handler: async ({ user }) => ({ prices: await desk.prices(user.address) }),
    }),
    defineRoute({
      method: "post", path: "/api/positions/close", tag: "trading", auth: true, limit: "orders",
      summary: "Close a position (or part of it) with a reduce-only market order",
      body: z.object({ symbol: z.string().min(1).max(32), size: decimal.optional(), vaultAddress: address.optional() }).strict(),
      response: R.tradeResult,
      errors: ["INVALID_INPUT", "UNAUTHENTICATED", "FORBIDDEN", "NOT_FOUND", "NO_POSITION", "VAULT_PAUSED", "VAULT_CLOSED",
        "AGENT_NOT_APPROVED", "CONFLICT", "ORDER_REJECTED", "RATE_LIMITED", "EXCHANGE_UNAVAILABLE", "BALANCE_STALE"],
      handler: async ({ body, user, ctx }) => render(await desk.closePosition(user.address, body, idempotencyKey(ctx.headers))),
    }),
    defineRoute({
      method: "get", path: "/api/agent", tag: "agent", auth: true,
      query: z.object({ signatureChainId: z.string().regex(/^0x[0-9a-fA-F]{1,16}$/).optional() }).strict(),
      summary: "Your agent key: address, approval on the exchange, and the approveAgent typed data to sign while it is not approved",
      response: R.agentStatus,
      errors: ["UNAUTHENTICATED", "RATE_LIMITED", "EXCHANGE_UNAVAILABLE"],
      handler: async ({ query, user }) => agentView(await agents.status(user.address, { signatureChainId: query.signatureChainId })),
    }),
    defineRoute({
      method: "post", path: "/api/agent/approve", tag: "agent", auth: true,
      summary: "Relay the approveAgent action your wallet signed (typed data from GET /api/agent)",
      body: z.object({
        nonce: integerField(z.number().int().positive()),
        signature,
        signatureChainId: z.string().regex(/^0x[0-9a-fA-F]{1,16}$/).optional(),
      }).strict(),
      response: R.agentStatus,
      errors: ["INVALID_INPUT", "UNAUTHENTICATED", "FORBIDDEN", "INSUFFICIENT_BALANCE", "ORDER_REJECTED", "EXCHANGE_UNAVAILABLE"],
      handler: async ({ body, user }) => agentView(await agents.approve(user.address, body)),
    }),
  ];
}
