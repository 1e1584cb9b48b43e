// Trading as the API offers it, one way down: the Idempotency-Key's guard (a replay answers before
// any check), the vault gate (which account, under which rules), trading (venue rules, signature,
// exchange, audit record), then the vault's balance told of a fill. Users' orders reach trading only
// through here, so trading itself knows nothing of vaults and the vault rules are checked on every
// path (trade, close, cancel, reads); the daemon's own orders (enforcement's, kept stops) call trading
// from their modules.
import type { AccountViews } from "../trading/account-views.js";
import type { Idempotency } from "../trading/idempotency.js";
import type { Target } from "../trading/target.js";
import { sameClose, samePlacement, type TradeInput, type TradeResult, type TradingService } from "../trading/trading-service.js";
import type { StopKeeper } from "./stop-keeper.js";
import type { VaultBalances } from "./vault-balances.js";
import type { TradeIntent, VaultGate } from "./vault-gate.js";

export interface OrderDeskDeps {
  trading: TradingService;
  idempotency: Idempotency;
  views: AccountViews;
  gate: VaultGate;
  balances: Pick<VaultBalances, "traded">;
  /** Told of a close, so the closed position's remaining stops are canceled at once. */
  stops: Pick<StopKeeper, "nudge" | "placed">;
}

export function createOrderDesk(deps: OrderDeskDeps) {
  const { trading, idempotency, views, gate, balances } = deps;
  const own = (user: string): Target => ({ account: user });
  const forTrade = (user: string, vault: string | undefined, intent: TradeIntent) =>
    (vault === undefined ? Promise.resolve(own(user)) : gate.forTrade(user, vault, intent));
  const forRead = (user: string, vault?: string) => (vault === undefined ? Promise.resolve(own(user)) : gate.forRead(user, vault));

  /** A vault order that filled at once: the vault's fills and account are read now, not at the next oracle cycle. */
  function told(target: Target, result: TradeResult): TradeResult {
    if (target.vaultAddress && result.filled) balances.traded(target.vaultAddress);
    return result;
  }

  return {
    place: (user: string, input: TradeInput, idempotencyKey?: string) =>
      idempotency.once(user, idempotencyKey, samePlacement(input), async () => {
        const target = await forTrade(user, input.vaultAddress, { reduceOnly: input.reduceOnly === true });
        const result = await trading.place(user, target, input, idempotencyKey);
        if (input.trigger || input.protection) deps.stops.placed();
        return told(target, result);
      }),
    /** Closing is a reduce-only market order; the position's remaining stops go with it. */
    closePosition: (user: string, input: { symbol: string; size?: string; vaultAddress?: string }, idempotencyKey?: string) =>
      idempotency.once(user, idempotencyKey, sameClose(input), async () => {
        const target = await forTrade(user, input.vaultAddress, { reduceOnly: true });
        const result = await trading.closePosition(user, target, input, idempotencyKey);
        deps.stops.nudge(target.account);
        return told(target, result);
      }),
    cancel: async (user: string, orderId: number, vault?: string) =>
      trading.cancel(vault === undefined ? own(user) : await gate.forManage(user, vault), orderId),
    openOrders: async (user: string, vault?: string) => views.openOrders(await forRead(user, vault), user),
    order: async (user: string, orderId: number, vault?: string) => views.order(await forRead(user, vault), orderId, user),
    positions: async (user: string, vault?: string) => views.positions(await forRead(user, vault), user),
    prices: (user: string) => views.prices(user),
  };
}

export type OrderDesk = ReturnType<typeof createOrderDesk>;
