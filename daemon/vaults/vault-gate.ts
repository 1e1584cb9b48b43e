// Which exchange account a vault order or read goes to, after SPEC 4.5's vault checks: the caller is
// the vault's trader, it is not closed, not paused, the deadline has not passed, the balance is fresh,
// and no limit is already breached on the exchange (the gap between oracle cycles: a breach seen
// here is written on-chain at once, and the order refused with VAULT_PAUSED once the contract paused).
// A paused vault whose signed breach policy is "reduce-only" still takes reduce-only orders: they can
// only take risk off, which is what both parties want after a breach.
import type { Executor } from "../db/store.js";
import type { VaultRow } from "../db/schema-chain.js";
import { AppError } from "../errors.js";
import type { Target } from "../trading/target.js";
import type { VaultBalances } from "./vault-balances.js";
import { assertOpen, vaultFor } from "./vault-access.js";
import { assess } from "./vault-math.js";
import { breachPolicyRule } from "./breach-policies.js";
import { pausedRefusal } from "./refusals.js";

/** What the order could do to the vault's exposure: reduce-only orders can only take risk off. */
export interface TradeIntent {
  reduceOnly: boolean;
}

export interface VaultGateDeps {
  db: Executor;
  balances: VaultBalances;
  /** Writes a fresh balance on-chain now and reacts to a pause (the vault service's refresh). */
  refresh(address: string): Promise<VaultRow>;
  clock: () => number;
  /** Age past which a vault's balance is too old to trade on. */
  staleAfterMs: number;
}

export function createVaultGate(deps: VaultGateDeps) {
  const { db, balances, clock } = deps;
  const targetOf = (v: VaultRow): Target => ({ account: v.exchange_account, vaultAddress: v.address });

  return {
    async forTrade(user: string, address: string, intent: TradeIntent = { reduceOnly: false }): Promise<Target> {
      const { vault: v, role } = await vaultFor(db, user, address);
      if (role !== "trader") throw new AppError("FORBIDDEN", "only the vault's trader may trade it");
      assertOpen(v);
      // Reducing a paused vault's exposure needs no fresh balance or limit check: it is already paused.
      const mayReduce = breachPolicyRule(v.breach_policy).reduceOnlyWhilePaused && intent.reduceOnly;
      if (v.paused) {
        if (mayReduce) return targetOf(v);
        throw pausedRefusal(v);
      }
      if (v.deal_deadline < Math.floor(clock() / 1000)) throw new AppError("DEAL_EXPIRED", "the deal deadline has passed");
      const age = clock() - (v.last_observed_at ?? 0) * 1000;
      if (v.last_observed_at === null || age > deps.staleAfterMs) {
        throw new AppError("BALANCE_STALE", "the vault's balance is too old to trade on; the oracle will refresh it", {
          retryAfter: 10, details: { lastBalanceUpdate: v.last_observed_at },
        });
      }
      const reading = await balances.read(v);
      const risk = assess(
        // The stored day is the last reading's (the contract keeps the block's; they differ only within
        // the contract's clock-skew allowance of midnight).
        { peak: BigInt(v.peak_balance), dayStart: BigInt(v.day_start_balance), day: Math.floor(v.last_observed_at / 86_400) },
        reading.balance, reading.observedAt, { maxBps: v.max_drawdown_bps, dailyBps: v.daily_drawdown_bps },
      );
      if (risk.breach) {
        const after = await deps.refresh(v.address);
        if (after.paused && !mayReduce) throw pausedRefusal(after);
      }
      balances.markActive(v.address);
      return targetOf(v);
    },

    /**
     * Managing the vault's resting orders (cancel): its trader, in every state but CLOSED. A paused,
     * stale or expired vault must still let its trader take risk off the book.
     */
    async forManage(user: string, address: string): Promise<Target> {
      const { vault: v, role } = await vaultFor(db, user, address);
      if (role !== "trader") throw new AppError("FORBIDDEN", "only the vault's trader may manage its orders");
      assertOpen(v);
      return targetOf(v);
    },

    /** Reads (orders, positions) of a vault the caller trades or invests in. */
    async forRead(user: string, address: string): Promise<Target> {
      return targetOf((await vaultFor(db, user, address)).vault);
    },
  };
}

export type VaultGate = ReturnType<typeof createVaultGate>;
