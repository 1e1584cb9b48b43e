// Reads and cancels on an exchange account: open orders, one order with its fills, positions.
// The exchange is the source of truth for all of these; the orders table is the audit trail.
import type { Store } from "../db/database.js";
import * as orders from "../db/orders-repo.js";
import { AppError } from "../errors.js";
import type { ExchangeAdapter } from "../exchange/types.js";
import type { AgentService } from "./agent-service.js";
import { exchangeStatusToOrderStatus } from "./reconciler.js";
import type { VaultAccount } from "./vault-gate.js";

type AccountFor = (user: string, vaultAddress: string | undefined, purpose: "trade" | "read") => Promise<VaultAccount>;

export function createAccountViews(deps: {
  store: Store;
  exchange: ExchangeAdapter;
  agents: AgentService;
  accountFor: AccountFor;
  clock: () => number;
}) {
  const { exchange, agents, accountFor, clock } = deps;
  const { db, sync } = deps.store;

  async function findOwnOrder(account: string, orderId: number) {
    const lookup = await exchange.orderStatus(account, orderId);
    // An order id of another account is "unknown" for this one: 404, never another user's data.
    if (!lookup.found) throw new AppError("NOT_FOUND", `no order ${orderId} on this account`);
    return lookup;
  }

  return {
    async openOrders(user: string, vaultAddress?: string) {
      const { account } = await accountFor(user, vaultAddress, "read");
      const open = await exchange.openOrders(account);
      return open.map((o) => ({ orderId: o.oid, symbol: o.symbol, side: o.side, size: o.size, price: o.limitPrice, status: "resting" as const }));
    },

    async order(user: string, orderId: number, vaultAddress?: string) {
      const { account } = await accountFor(user, vaultAddress, "read");
      const { order, status, statusTimestamp } = await findOwnOrder(account, orderId);
      const fills = (await exchange.fills(account, order.timestamp - 60_000)).filter((f) => f.oid === orderId);
      return {
        orderId, symbol: order.symbol, side: order.side, size: order.origSize, remaining: order.size,
        price: order.limitPrice, status: exchangeStatusToOrderStatus(status), exchangeStatus: status,
        cloid: order.cloid, timestamp: order.timestamp, statusTimestamp,
        fills: fills.map((f) => ({ price: f.price, size: f.size, fee: f.fee, closedPnl: f.closedPnl, time: f.time, tradeId: f.tid })),
      };
    },

    async cancel(user: string, orderId: number, vaultAddress?: string) {
      const { account, subAccount } = await accountFor(user, vaultAddress, "trade");
      const { order, status } = await findOwnOrder(account, orderId);
      if (status !== "open") throw new AppError("ORDER_NOT_OPEN", `order ${orderId} is ${status}, not open`);
      const market = (await exchange.markets()).find((m) => m.symbol === order.symbol);
      if (!market) throw new AppError("EXCHANGE_UNAVAILABLE", `the exchange no longer lists ${order.symbol}`);
      await exchange.cancelOrder(await agents.signerFor(account), { asset: market.asset, oid: orderId }, { subAccount });
      const row = await orders.findByOid(db, account, orderId);
      if (row) orders.updateOrder(db, sync, row.cloid, { status: "canceled" }, clock());
      return { orderId, status: "canceled" as const };
    },

    async positions(user: string, vaultAddress?: string) {
      const { account } = await accountFor(user, vaultAddress, "read");
      const [state, mids] = await Promise.all([exchange.accountState(account), exchange.mids()]);
      return state.positions.map((p) => ({
        symbol: p.symbol, size: p.size, entryPrice: p.entryPrice, markPrice: mids[p.symbol] ?? p.entryPrice,
        unrealizedPnl: p.unrealizedPnl, liquidationPrice: p.liquidationPrice,
      }));
    },
  };
}

export type AccountViews = ReturnType<typeof createAccountViews>;
