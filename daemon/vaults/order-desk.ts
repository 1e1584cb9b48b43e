// Trading as the API offers it: on the caller's own exchange account, or (with `vaultAddress`) on a
// vault's, through the vault gate. The one place that puts the two together, so trading itself knows
// nothing of vaults and the vault rules are checked on every path (trade, close, cancel, reads).
import type { Logger } from "pino";
import type { AccountViews } from "../trading/account-views.js";
import type { Target } from "../trading/target.js";
import type { TradeInput, TradeResult, TradingService } from "../trading/trading-service.js";
import type { StopKeeper } from "./stop-keeper.js";
import type { VaultBalances } from "./vault-balances.js";
import type { TradeIntent, VaultGate } from "./vault-gate.js";
import * as vaultsRepo from "../db/vaults-repo.js";
import type { Executor } from "../db/store.js";

export interface OrderDeskDeps {
  db: Executor;
  trading: TradingService;
  views: AccountViews;
  gate: VaultGate;
  balances: VaultBalances;
  /** Told of a close, so the closed position's remaining stops are canceled at once. */
  stops: Pick<StopKeeper, "nudge" | "placed">;
  log: Logger;
}

export function createOrderDesk(deps: OrderDeskDeps) {
  const { trading, views, gate, log } = deps;
  const own = (user: string): Target => ({ account: user });
  const forTrade = (user: string, vault: string | undefined, intent: TradeIntent) => () =>
    (vault === undefined ? Promise.resolve(own(user)) : gate.forTrade(user, vault, intent));
  const forRead = (user: string, vault?: string) => (vault === undefined ? Promise.resolve(own(user)) : gate.forRead(user, vault));

  /**
   * A vault order that filled at once has its fills recorded now, not at the next oracle cycle, and
   * its account read again: the revaluation between polls starts from the new positions, not from a
   * poll that did not have them.
   */
  function afterOrder(result: TradeResult, vault?: string): TradeResult {
    if (vault && result.filled) {
      vaultsRepo.findVault(deps.db, vault)
        .then((v) => v && Promise.all([deps.balances.recordFills(v), deps.balances.read(v)]))
        .catch((err) => log.warn({ vault, err: (err as Error).message }, "cannot record the order's fills yet; the oracle will"));
    }
    return result;
  }

  return {
    async place(user: string, input: TradeInput, idempotencyKey?: string) {
      const intent = { reduceOnly: input.reduceOnly === true };
      const result = await trading.place(user, forTrade(user, input.vaultAddress, intent), input, idempotencyKey);
      if (input.trigger || input.protection) deps.stops.placed();
      return afterOrder(result, input.vaultAddress);
    },
    async closePosition(user: string, input: { symbol: string; size?: string; vaultAddress?: string }, idempotencyKey?: string) {
      // Closing is a reduce-only market order.
      const intent = { reduceOnly: true };
      let account = user;
      const target = async () => {
        const t = await forTrade(user, input.vaultAddress, intent)();
        account = t.account;
        return t;
      };
      const result = afterOrder(await trading.closePosition(user, target, input, idempotencyKey), input.vaultAddress);
      deps.stops.nudge(account);
      return result;
    },
    cancel: async (user: string, orderId: number, vault?: string) =>
      trading.cancel(vault === undefined ? own(user) : await gate.forManage(user, vault), orderId),
    openOrders: async (user: string, vault?: string) => views.openOrders(await forRead(user, vault), user),
    order: async (user: string, orderId: number, vault?: string) => views.order(await forRead(user, vault), orderId, user),
    positions: async (user: string, vault?: string) => views.positions(await forRead(user, vault), user),
    prices: (user: string) => views.prices(user),
  };
}

export type OrderDesk = ReturnType<typeof createOrderDesk>;
