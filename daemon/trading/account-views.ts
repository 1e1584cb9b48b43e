// Reads of an exchange account: the account summary, open orders, one order with its fills,
// positions. The exchange is the source of truth for all of these; the orders table is the audit
// trail. Each is a read a signed-in user asked for (`caller`), so it goes through the users' reads:
// kept a few seconds per account and weighed against the caller's budget (exchange/user-reads.ts).
// Amounts stay decimal strings here; the HTTP edge renders SPEC's numbers.
import { AppError, isAppError } from "../errors.js";
import type { ExchangeAdapter } from "../exchange/types.js";
import type { UserReads } from "../exchange/user-reads.js";
import type { AgentService } from "./agent-service.js";
import type { OrderSync } from "./order-sync.js";
import { waitingProtection } from "./protection.js";
import { exchangeStatusToOrderStatus } from "./reconciler.js";
import type { Target } from "./target.js";

export interface PositionView {
  symbol: string;
  /** Signed: negative for shorts. Decimal strings throughout. */
  size: string;
  entryPrice: string;
  markPrice: string;
  unrealizedPnl: string;
  liquidationPrice: string | null;
}

export function createAccountViews(deps: {
  exchange: Pick<ExchangeAdapter, "kind">; reads: UserReads; agents: AgentService; orderSync: Pick<OrderSync, "record">;
}) {
  const { exchange, reads, agents } = deps;

  return {
    /** SPEC 4.4: the exchange account's summary and the agent's status; still answers when the exchange is down. */
    async summary(user: string) {
      try {
        const [state, agent] = await Promise.all([reads.as(user).accountState(user), agents.status(user)]);
        return {
          exchange: {
            kind: exchange.kind, available: true as const, accountValue: state.accountValue, withdrawable: state.withdrawable,
            marginUsed: state.totalMarginUsed, openPositions: state.positions.length,
          },
          agent: { address: agent.agentAddress, approved: agent.approved, validUntilMs: agent.validUntil },
        };
      } catch (err) {
        if (!isAppError(err) || err.code !== "EXCHANGE_UNAVAILABLE") throw err;
        return { exchange: { kind: exchange.kind, available: false as const, error: err.message }, agent: null };
      }
    },

    async openOrders(target: Target, caller: string) {
      const open = await reads.as(caller).openOrders(target.account);
      return open.map((o) => ({
        orderId: o.oid, symbol: o.symbol, side: o.side, size: o.size, price: o.limitPrice, status: "resting" as const,
        trigger: o.trigger, protection: waitingProtection(o),
      }));
    },

    async order(target: Target, orderId: number, caller: string) {
      const read = reads.as(caller);
      const lookup = await read.orderStatus(target.account, orderId);
      // An order id of another account is "unknown" for this one: 404, never another user's data.
      if (!lookup.found) throw new AppError("NOT_FOUND", `no order ${orderId} on this account`);
      // Seen closed here first: the row need not wait for the order sync's next pass.
      await deps.orderSync.record(target.account, lookup);
      const { order, status, statusTimestamp } = lookup;
      const fills = (await read.fills(target.account, order.timestamp - 60_000)).filter((f) => f.oid === orderId);
      return {
        orderId, symbol: order.symbol, side: order.side, size: order.origSize, remaining: order.size,
        price: order.limitPrice, status: exchangeStatusToOrderStatus(status), exchangeStatus: status,
        cloid: order.cloid, timestamp: order.timestamp, statusTimestamp,
        fills: fills.map((f) => ({ price: f.price, size: f.size, fee: f.fee, closedPnl: f.closedPnl, time: f.time, tradeId: f.tid })),
      };
    },

    /** Mid prices by symbol as the exchange gives them (decimal strings): public market data. */
    prices: (caller: string) => reads.as(caller).mids(),

    async positions(target: Target, caller: string): Promise<PositionView[]> {
      const read = reads.as(caller);
      const [state, mids] = await Promise.all([read.accountState(target.account), read.mids()]);
      return state.positions.map((p) => ({
        symbol: p.symbol, size: p.size, entryPrice: p.entryPrice, markPrice: mids[p.symbol] ?? p.entryPrice,
        unrealizedPnl: p.unrealizedPnl, liquidationPrice: p.liquidationPrice,
      }));
    },
  };
}

export type AccountViews = ReturnType<typeof createAccountViews>;
