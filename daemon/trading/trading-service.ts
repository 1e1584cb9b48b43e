// Orders on the caller's exchange account (or a vault's), in SPEC 4.5's order: vault checks, venue
// rules, agent signature, exchange call, audit trail. An order is written before the exchange call
// (with its idempotency key, in one commit) and settled after; an outcome in doubt is never re-signed
// blindly but asked for by cloid (see reconciler.ts).
import { createHash, randomBytes } from "node:crypto";
import type { Logger } from "pino";
import type { Store } from "../db/database.js";
import * as orders from "../db/orders-repo.js";
import type { OrderRow } from "../db/schema.js";
import { AppError, type ErrorCode } from "../errors.js";
import type { Cloid, ExchangeAdapter } from "../exchange/types.js";
import type { AgentService } from "./agent-service.js";
import { compareDecimal } from "../lib/decimal.js";
import { checkOrder, type OrderIntent } from "./order-rules.js";
import type { Reconciler } from "./reconciler.js";
import type { VaultAccount, VaultGate } from "./vault-gate.js";

export interface TradeInput extends OrderIntent {
  vaultAddress?: string;
}

export interface TradeResult {
  orderId: number;
  status: "submitted";
  /** Unix milliseconds. */
  timestamp: number;
}

export interface TradingDeps {
  store: Store;
  exchange: ExchangeAdapter;
  agents: AgentService;
  vaults: VaultGate;
  reconciler: Reconciler;
  clock: () => number;
  log: Logger;
  slippageBps: number;
  /** How long a signed order stays valid in flight (Hyperliquid's expiresAfter). */
  orderTtlMs: number;
  /** Called (not awaited) after an order for a vault was placed, so its fills are recorded at once. */
  onVaultOrder?: (vaultAddress: string) => void;
}

/** 128-bit client order id with the top bit set (the SDK reads small ones as oids). */
export function newCloid(): Cloid {
  const bytes = randomBytes(16);
  bytes[0] = bytes[0]! | 0x80;
  return `0x${bytes.toString("hex")}`;
}

const requestHash = (input: unknown) => createHash("sha256").update(JSON.stringify(input)).digest("hex");

/** The answer a settled row gives, the same for the first request and any retry with its key. */
export function outcomeOf(row: OrderRow): TradeResult {
  if (row.status === "rejected") {
    throw new AppError((row.error_code ?? "ORDER_REJECTED") as ErrorCode, row.error_message ?? "the order was rejected");
  }
  if (row.status === "pending" || row.status === "unknown" || row.oid === null) {
    throw new AppError("EXCHANGE_UNAVAILABLE", "the order's outcome is not known yet; it is being reconciled", {
      retryable: true,
      retryAfter: 5,
      details: { cloid: row.cloid },
    });
  }
  return { orderId: row.oid, status: "submitted", timestamp: row.created_at };
}

export function createTradingService(deps: TradingDeps) {
  const { store, exchange, agents, vaults, clock } = deps;
  const { db, sync } = store;

  const accountFor = (user: string, vaultAddress: string | undefined, purpose: "trade" | "read"): Promise<VaultAccount> =>
    vaultAddress === undefined
      ? Promise.resolve({ account: user })
      : purpose === "trade"
        ? vaults.forTrade(user, vaultAddress)
        : vaults.forRead(user, vaultAddress);

  async function place(user: string, input: TradeInput, idempotencyKey?: string): Promise<TradeResult> {
    if (idempotencyKey) {
      const seen = orders.findByIdempotencyKey(db, sync, user, idempotencyKey);
      if (seen) return replay(seen, requestHash(input));
    }
    return submit(user, await accountFor(user, input.vaultAddress, "trade"), input, idempotencyKey);
  }

  /** Places an order on an account already cleared for it (by the vault gate, or the caller's own). */
  async function submit(user: string, target: VaultAccount, input: TradeInput, idempotencyKey?: string): Promise<TradeResult> {
    const fingerprint = requestHash(input);
    const { account, subAccount } = target;
    const markets = await exchange.markets();
    const mids = input.price === undefined ? await exchange.mids() : {};
    const order = checkOrder(input, markets, () => mids[input.symbol], deps.slippageBps);
    const agent = await agents.signerFor(account);

    const now = clock();
    const cloid = newCloid();
    const row = {
      cloid, user, account, vault_address: input.vaultAddress ?? null, agent: agent.address,
      idempotency_key: idempotencyKey ?? null, request_hash: fingerprint, symbol: order.market.symbol,
      asset: order.market.asset, side: input.side, size: order.size, price: order.price, tif: order.tif,
      reduce_only: order.reduceOnly ? 1 : 0, market: order.isMarket ? 1 : 0, status: "pending" as const, oid: null,
      filled_size: null, average_price: null, error_code: null, error_message: null,
      expires_at: now + deps.orderTtlMs, created_at: now, updated_at: now,
    };
    const earlier = store.immediate(() => {
      const seen = idempotencyKey ? orders.findByIdempotencyKey(db, sync, user, idempotencyKey) : undefined;
      if (!seen) orders.insertOrder(db, sync, row);
      return seen;
    });
    if (earlier) return replay(earlier, fingerprint);

    try {
      const placed = await exchange.placeOrder(
        agent,
        { asset: order.market.asset, isBuy: order.isBuy, price: order.price, size: order.size, reduceOnly: order.reduceOnly, tif: order.tif, cloid },
        { subAccount, expiresAfter: row.expires_at },
      );
      // Not synced to disk (saves an fsync per order): if a power cut loses this update, the row is
      // left pending and the reconciler settles it by cloid at start-up, as it does after a crash.
      store.relaxed(() => orders.updateOrder(db, sync, cloid, placed.kind === "resting"
        ? { status: "resting", oid: placed.oid }
        : { status: "filled", oid: placed.oid, filled_size: placed.totalSize, average_price: placed.averagePrice }, clock()));
      if (input.vaultAddress && placed.kind === "filled") deps.onVaultOrder?.(input.vaultAddress);
      return { orderId: placed.oid, status: "submitted", timestamp: now };
    } catch (err) {
      const e = err instanceof AppError ? err : new AppError("INTERNAL", "order failed", { cause: err });
      if (e.code === "EXCHANGE_UNAVAILABLE") {
        orders.updateOrder(db, sync, cloid, { status: "unknown" }, clock());
        deps.log.warn({ cloid, err: e.message }, "order outcome in doubt; reconciling by cloid");
        const settled = await deps.reconciler.settle(cloid);
        if (settled && settled.status !== "unknown" && settled.status !== "pending") return outcomeOf(settled);
        throw new AppError("EXCHANGE_UNAVAILABLE", `${e.message}; the order's outcome is being reconciled`, {
          retryable: true, retryAfter: 5, details: { cloid }, cause: e,
        });
      }
      if (e.code === "AGENT_NOT_APPROVED") await agents.forget(agent.address);
      orders.updateOrder(db, sync, cloid, { status: "rejected", error_code: e.code, error_message: e.message }, clock());
      throw e;
    }
  }

  function replay(row: OrderRow, fingerprint: string): TradeResult {
    if (row.request_hash !== fingerprint) {
      throw new AppError("CONFLICT", "this Idempotency-Key was used for a different request");
    }
    return outcomeOf(row);
  }

  /** A reduce-only market order against the position; the whole position when no size is given. */
  async function closePosition(
    user: string,
    input: { symbol: string; size?: string; vaultAddress?: string },
    idempotencyKey?: string,
  ): Promise<TradeResult> {
    // A retry must not look at the position again: it is gone once the first close filled. So the
    // replay is matched on what a close fixes (symbol, vault, reduce-only), not on the whole request.
    const seen = idempotencyKey ? orders.findByIdempotencyKey(db, sync, user, idempotencyKey) : undefined;
    if (seen) {
      const same = seen.symbol === input.symbol && seen.vault_address === (input.vaultAddress ?? null) && seen.reduce_only === 1;
      if (!same) throw new AppError("CONFLICT", "this Idempotency-Key was used for a different request");
      return outcomeOf(seen);
    }
    const target = await accountFor(user, input.vaultAddress, "trade");
    const position = (await exchange.accountState(target.account)).positions.find((p) => p.symbol === input.symbol);
    if (!position || position.size === "0") throw new AppError("NO_POSITION", `no open ${input.symbol} position`);
    const held = position.size.replace(/^-/, "");
    if (input.size !== undefined && compareDecimal(input.size, held) > 0) {
      throw new AppError("INVALID_INPUT", `size: the position is only ${held}`, {
        details: [{ field: "body.size", message: `at most the position size ${held}` }],
      });
    }
    // Straight to submit: the account was cleared above (place would run the vault gate again).
    return submit(
      user,
      target,
      { symbol: input.symbol, side: position.size.startsWith("-") ? "buy" : "sell", size: input.size ?? held, reduceOnly: true, vaultAddress: input.vaultAddress },
      idempotencyKey,
    );
  }

  /**
   * Cancels every open order and closes every position of an account with reduce-only market
   * orders, through the audit trail (closing a vault, or after a breach). Returns what it did.
   */
  async function flatten(user: string, target: VaultAccount, vaultAddress: string, opts: { closePositions: boolean }) {
    const markets = await exchange.markets();
    const open = await exchange.openOrders(target.account);
    const agent = open.length > 0 ? await agents.signerFor(target.account) : undefined;
    for (const o of open) {
      const market = markets.find((m) => m.symbol === o.symbol);
      if (!market) continue;
      await exchange.cancelOrder(agent!, { asset: market.asset, oid: o.oid }, { subAccount: target.subAccount }).catch((err) => {
        if (!(err instanceof AppError && err.code === "ORDER_NOT_OPEN")) throw err;
      });
    }
    const closed: TradeResult[] = [];
    if (opts.closePositions) {
      for (const p of (await exchange.accountState(target.account)).positions) {
        if (p.size === "0") continue;
        const side = p.size.startsWith("-") ? "buy" : "sell";
        closed.push(await submit(user, target, { symbol: p.symbol, side, size: p.size.replace(/^-/, ""), reduceOnly: true, vaultAddress }));
      }
    }
    return { canceledOrders: open.length, closedPositions: closed };
  }

  return { place, closePosition, flatten, accountFor };
}

export type TradingService = ReturnType<typeof createTradingService>;
