// A vault account's exposure against what a rule allows: one pass reads the account (resting orders,
// and positions when the rule closes them), and acts on what differs: cancels the orders the rule
// does not allow and closes each position whole with a reduce-only market order. Every order and
// position is tried even when one fails; a position worth less than the venue's minimum order value
// that the exchange refuses to close is left as dust, never an error, so it cannot block a flatten or
// a vault's close. A close order whose outcome is in doubt is settled by its cloid before anything
// new is sent for the vault: a position is never closed twice.
import type { Logger } from "pino";
import type { Executor } from "../db/store.js";
import * as ordersRepo from "../db/orders-repo.js";
import type { VaultRow } from "../db/schema-chain.js";
import { AppError, asAppError } from "../errors.js";
import type { ExchangeAdapter, OpenOrderState, PositionState, ReadOptions } from "../exchange/types.js";
import { compareDecimal } from "../lib/decimal.js";
import { MIN_ORDER_VALUE } from "../trading/order-rules.js";
import { settledNoLaterThan, type Reconciler } from "../trading/reconciler.js";
import type { TradingService } from "../trading/trading-service.js";
import type { BreachPolicyRule } from "./breach-policies.js";

/** The orders table's `user` of the orders enforcement and closes send. */
export const ENFORCER = "enforcement";

/** The pass stopped because an earlier order of the vault is still in doubt (not because the exchange failed). */
export const isInDoubt = (e: AppError) => e.code === "CONFLICT" && (e.details as { inDoubt?: string } | undefined)?.inDoubt !== undefined;

export interface ExposureDeps {
  db: Executor;
  exchange: ExchangeAdapter;
  trading: TradingService;
  reconciler: Reconciler;
  log: Logger;
  clock: () => number;
  /** How long a close order may take to land (expiresAfter): one in doubt is settled that much sooner. */
  closeTtlMs?: number;
}

export interface ClosedPosition {
  symbol: string;
  /** The position closed, signed decimal text. */
  size: string;
  orderId: number;
  filledSize: string | null;
  averagePrice: string | null;
}

export interface DustPosition {
  symbol: string;
  size: string;
  /** Its value at mark, USDC decimal text: below the venue's minimum order value. */
  value: string;
}

export interface PassResult {
  /** The account already held the rule when read (nothing was sent), or only refused dust is left. */
  holds: boolean;
  canceled: number;
  closed: ClosedPosition[];
  dust: DustPosition[];
}

type Rule = BreachPolicyRule["enforce"];

const FLATTEN: Rule = { cancel: "all", closePositions: true };
const MAX_PASSES = 3;
/** Retry-After when the exchange could not be asked about an order in doubt: about the reconciler's lookups. */
const LOOKUP_RETRY_S = 5;

const isOpen = (p: PositionState) => compareDecimal(p.size, "0") !== 0;
/** A reduce-only stop-loss or take-profit: it only takes exposure off, so it stays armed while its position is open. */
const isProtective = (o: OpenOrderState) => o.trigger !== null && o.reduceOnly;
const allowedWhilePaused = (rule: Rule, o: OpenOrderState) =>
  rule.cancel === "not-reduce-only" ? o.reduceOnly : rule.cancel === "entries" && isProtective(o);
const isDust = (p: PositionState) => compareDecimal(p.positionValue, MIN_ORDER_VALUE) < 0;

export function createExposure(deps: ExposureDeps) {
  const { db, exchange, trading, reconciler } = deps;
  const closeTtlMs = deps.closeTtlMs ?? 5_000;

  /**
   * Settles the vault's orders in doubt by cloid, asking the exchange now; throws while one is still
   * unknown, with Retry-After at the moment it can be settled for certain (its expiry) or, when the
   * exchange could not be asked, at the next lookup.
   */
  async function settleInDoubt(v: VaultRow): Promise<void> {
    for (const row of await ordersRepo.inDoubtOfVault(db, v.address)) {
      const settled = await reconciler.settle(row.cloid);
      if (settled && (settled.status === "pending" || settled.status === "unknown")) {
        const waitMs = settledNoLaterThan(settled) - deps.clock();
        throw new AppError("CONFLICT", `order ${row.cloid} of this vault is still in doubt; it is settled before anything new is sent`, {
          retryable: true, retryAfter: waitMs > 0 ? Math.ceil(waitMs / 1000) : LOOKUP_RETRY_S, details: { inDoubt: row.cloid },
        });
      }
    }
  }

  async function pass(v: VaultRow, rule: Rule, opts: ReadOptions): Promise<PassResult> {
    await settleInDoubt(v);
    const account = v.exchange_account;
    const [open, state] = await Promise.all([
      exchange.openOrders(account, opts),
      rule.closePositions ? exchange.accountState(account, opts) : undefined,
    ]);
    const positions = state?.positions.filter(isOpen) ?? [];
    // Where positions are read, a protective trigger whose position is already flat has nothing left to protect.
    const flat = (o: OpenOrderState) => state !== undefined && !positions.some((p) => p.symbol === o.symbol);
    const orders = open.filter((o) => !allowedWhilePaused(rule, o) || (isProtective(o) && flat(o)));
    if (orders.length === 0 && positions.length === 0) return { holds: true, canceled: 0, closed: [], dust: [] };

    const target = { account, vaultAddress: v.address };
    const { canceled, errors } = await trading.cancelOrders(target, orders);
    // The exchange just failed to answer a cancel: a close sent now would most likely be in doubt
    // too, and hold up the next try until it is settled. The next try closes.
    const down = errors.find((e) => e.code === "EXCHANGE_UNAVAILABLE" && e.retryable);
    if (down) throw down;
    const closed: ClosedPosition[] = [];
    const dust: DustPosition[] = [];
    await Promise.all(positions.map(async (p) => {
      try {
        const r = await trading.closeWhole(ENFORCER, target, p, closeTtlMs);
        closed.push({ symbol: p.symbol, size: p.size, orderId: r.orderId, filledSize: r.filled?.size ?? null, averagePrice: r.filled?.averagePrice ?? null });
      } catch (err) {
        const e = asAppError(err);
        if (e.code === "ORDER_REJECTED" && isDust(p)) dust.push({ symbol: p.symbol, size: p.size, value: p.positionValue });
        else errors.push(e);
      }
    }));
    // A position closed whole takes its stops with it now, not at the pass that sees it flat.
    const done = new Set(closed.filter((c) => c.filledSize !== null && compareDecimal(c.filledSize, c.size.replace(/^-/, "")) >= 0).map((c) => c.symbol));
    const orphans = open.filter((o) => isProtective(o) && done.has(o.symbol) && !orders.includes(o));
    const after = await trading.cancelOrders(target, orphans);
    errors.push(...after.errors);
    if (errors.length > 0) throw errors[0];
    return { holds: orders.length === 0 && closed.length === 0, canceled: canceled + after.canceled, closed, dust };
  }

  return {
    pass,
    /** Cancels every order and closes every position (a vault's close); only refused dust may be left. */
    async flattenAll(v: VaultRow): Promise<{ canceled: number; closed: ClosedPosition[]; dust: DustPosition[] }> {
      let canceled = 0;
      const closed: ClosedPosition[] = [];
      for (let i = 0; i < MAX_PASSES; i += 1) {
        const r = await pass(v, FLATTEN, { priority: "trading" });
        canceled += r.canceled;
        closed.push(...r.closed);
        if (r.holds) return { canceled, closed, dust: r.dust };
      }
      throw new AppError("EXCHANGE_UNAVAILABLE", `positions are still open after ${MAX_PASSES} tries to close them; try again`, { retryable: true });
    },
  };
}

export type Exposure = ReturnType<typeof createExposure>;
