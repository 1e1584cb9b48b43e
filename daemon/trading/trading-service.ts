// Orders on an exchange account already cleared by the caller (the order desk's vault gate), in SPEC
// 4.5's order: venue rules, agent signature, exchange call, audit trail. An order is written before
// the exchange call (with its idempotency key, in one commit) and updated after; an outcome in doubt
// is never re-signed blindly but asked for by cloid (see reconciler.ts).
import { randomBytes } from "node:crypto";
import { sha256Hex } from "../lib/sha256.js";
import type { Logger } from "pino";
import type { Executor, UnitOfWork } from "../db/store.js";
import * as orders from "../db/orders-repo.js";
import type { OrderRow } from "../db/schema.js";
import { AppError, asAppError, type ErrorCode } from "../errors.js";
import type { ActionOptions, Cloid, ExchangeAdapter, OpenOrderState, Signer } from "../exchange/types.js";
import type { UserReads } from "../exchange/user-reads.js";
import { compareDecimal } from "../lib/decimal.js";
import type { AgentService } from "./agent-service.js";
import { checkOrder, type CheckedOrder, type OrderIntent } from "./order-rules.js";
import { protectionOf, protectionRecords, settleProtection, type ProtectionRecord, type ProtectionState } from "./protection.js";
import type { OrderSync } from "./order-sync.js";
import type { Reconciler } from "./reconciler.js";
import { settleStops, stopsOf } from "./stop-rows.js";
import * as stops from "../db/stops-repo.js";
import type { Target } from "./target.js";

export interface TradeResult {
  orderId: number;
  status: "submitted";
  /** Unix milliseconds. */
  timestamp: number;
  /** Filled at once (an IOC, or a limit order that crossed): the size and average price. */
  filled?: { size: string; averagePrice: string };
  /** The entry's stop-loss and take-profit, as the exchange answered them. */
  protection?: ProtectionState[];
}

export interface TradingDeps {
  db: Executor;
  work: UnitOfWork;
  exchange: ExchangeAdapter;
  agents: AgentService;
  reconciler: Reconciler;
  /** Stores a final status this service learns of an order (a cancel that finds it closed). */
  orderSync: Pick<OrderSync, "record">;
  /** What users' reads keep of an account, dropped once an order or a cancel went to it. */
  reads: Pick<UserReads, "forget">;
  clock: () => number;
  log: Logger;
  slippageBps: number;
  /** How long a signed order stays valid in flight (Hyperliquid's expiresAfter). */
  orderTtlMs: number;
}

export interface TradeInput extends OrderIntent {
  /** The vault whose capital this trades: part of what an Idempotency-Key fixes. */
  vaultAddress?: string;
}

const requestHash = (input: unknown) => sha256Hex(JSON.stringify(input));

/** Whether a stored order is this placement, for a replay of its Idempotency-Key. */
export const samePlacement = (input: TradeInput) => {
  const fingerprint = requestHash(input);
  return (row: OrderRow) => row.request_hash === fingerprint;
};

/**
 * Whether a stored order is this close. A retry must not look at the position again (it is gone once
 * the first close filled), so a replay is matched on what a close fixes: symbol, vault, reduce-only.
 */
export const sameClose = (input: { symbol: string; vaultAddress?: string }) =>
  (row: OrderRow) => row.symbol === input.symbol && row.vault_address === (input.vaultAddress ?? null) && row.reduce_only === 1;

/** 128-bit client order id with the top bit set (the SDK reads small ones as oids). */
export function newCloid(): Cloid {
  const bytes = randomBytes(16);
  bytes[0] = bytes[0]! | 0x80;
  return `0x${bytes.toString("hex")}`;
}

/** The reduce-only order that takes `size` (the whole position when omitted) off a position. */
function closingIntent(position: { symbol: string; size: string }, size?: string): OrderIntent {
  const short = position.size.startsWith("-");
  return { symbol: position.symbol, side: short ? "buy" : "sell", size: size ?? position.size.replace(/^-/, ""), reduceOnly: true };
}

/** The exchange's view of a checked order. */
const wireOrder = (o: CheckedOrder, cloid: Cloid) => ({
  asset: o.market.asset, isBuy: o.isBuy, price: o.price, size: o.size, reduceOnly: o.reduceOnly, tif: o.tif, cloid, trigger: o.trigger,
});

export const STILL_IN_FLIGHT = "the first request with this Idempotency-Key is still in flight; retry shortly";

/** The answer a settled row gives, the same for the first request and any retry with its key. */
export function outcomeOf(row: OrderRow): TradeResult {
  if (row.status === "rejected") {
    throw new AppError((row.error_code ?? "ORDER_REJECTED") as ErrorCode, row.error_message ?? "the order was rejected");
  }
  // Pending: the first request is still with the exchange, here or on another daemon (or its daemon
  // stopped mid-call, and the reconciler settles it soon): its answer is not known yet.
  if (row.status === "pending") {
    throw new AppError("CONFLICT", STILL_IN_FLIGHT, { retryAfter: 1 });
  }
  if (row.status === "unknown" || row.oid === null) {
    throw new AppError("EXCHANGE_UNAVAILABLE", "the order's outcome is not known yet; it is being reconciled", {
      retryable: true, retryAfter: 5, details: { cloid: row.cloid },
    });
  }
  // `fill` is the placement's own answer (only it has an average price): a fill a lookup learned (the
  // order sync, a settled doubt) is not, so a retry answers as the first request did.
  const filled = row.status === "filled" && row.filled_size && row.average_price ? { size: row.filled_size, averagePrice: row.average_price } : undefined;
  const protection = protectionOf(row);
  return { orderId: row.oid, status: "submitted", timestamp: row.created_at, ...(filled ? { filled } : {}), ...(protection ? { protection } : {}) };
}

export function createTradingService(deps: TradingDeps) {
  const { db, work, exchange, agents, clock } = deps;
  /** Places an order on an account already cleared for it (the order desk runs it inside its Idempotency-Key's guard). */
  async function place(user: string, target: Target, input: TradeInput, idempotencyKey?: string): Promise<TradeResult> {
    return submit(user, target, input, requestHash(input), idempotencyKey);
  }

  async function submit(
    user: string, target: Target, input: OrderIntent, fingerprint: string, idempotencyKey?: string, ttlMs = deps.orderTtlMs, cloid: Cloid = newCloid(),
  ): Promise<TradeResult> {
    const { account, subAccount } = target;
    const markets = await exchange.markets();
    // A market order is priced from the mid; a trigger and an entry's protection are checked against it.
    const mids = input.price === undefined || input.trigger || input.protection ? await exchange.mids() : {};
    const order = checkOrder(input, markets, () => mids[input.symbol], deps.slippageBps);
    const agent = await agents.signerFor(account);

    const now = clock();
    const row = {
      cloid, user, account, vault_address: target.vaultAddress ?? null, agent: agent.address,
      idempotency_key: idempotencyKey ?? null, request_hash: fingerprint, symbol: order.market.symbol,
      asset: order.market.asset, side: input.side, size: order.size, price: order.price, tif: order.tif,
      reduce_only: order.reduceOnly ? 1 : 0, market: order.isMarket ? 1 : 0, status: "pending" as const, oid: null,
      filled_size: null, average_price: null, error_code: null, error_message: null,
      protection: order.children ? JSON.stringify(protectionRecords(order.children, newCloid)) : null,
      expires_at: now + ttlMs, created_at: now, updated_at: now,
    };
    const children = row.protection ? (JSON.parse(row.protection) as ProtectionRecord[]) : [];
    const stored = await work.write(async (trx) => {
      const seen = idempotencyKey ? await orders.findByIdempotencyKey(trx, user, idempotencyKey) : undefined;
      if (seen) return seen;
      if (!(await orders.insertOrder(trx, row))) return "taken" as const;
      await stops.insertStops(trx, stopsOf(order, row, children));
      return undefined;
    });
    // "taken": a request with the same key committed its row while this one was writing (another daemon's).
    const earlier = stored === "taken" ? await orders.findByIdempotencyKey(db, user, idempotencyKey!) : stored;
    if (earlier) {
      if (earlier.request_hash !== fingerprint) throw new AppError("CONFLICT", "this Idempotency-Key was used for a different request");
      return outcomeOf(earlier);
    }

    let sent: Awaited<ReturnType<typeof send>>;
    try {
      sent = await send(agent, order, row, { subAccount, expiresAfter: row.expires_at });
    } catch (err) {
      const e = asAppError(err, "order failed");
      if (e.code === "EXCHANGE_UNAVAILABLE") return inDoubt(cloid, e);
      if (e.code === "AGENT_NOT_APPROVED") await agents.forget(agent.address);
      await orders.updateOrder(db, cloid, { status: "rejected", error_code: e.code, error_message: e.message }, clock());
      await settleStops(db, order, cloid, { rejected: e.message }, children, clock());
      throw e;
    } finally {
      deps.reads.forget(account);
    }
    const { placed, protection } = sent;
    try {
      // Not synced to disk (saves an fsync per order): if a power cut loses this update, the row is
      // left pending and the reconciler settles it by cloid at start-up, as it does after a crash.
      const settled = { ...(protection ? { protection } : {}) };
      await work.relaxed((trx) => orders.updateOrder(trx, cloid, placed.kind === "resting"
        ? { status: "resting", oid: placed.oid, ...settled }
        : { status: "filled", oid: placed.oid, filled_size: placed.totalSize, average_price: placed.averagePrice, ...settled }, clock()));
      await settleStops(db, order, cloid, { oid: placed.oid }, protection ? (JSON.parse(protection) as ProtectionRecord[]) : null, clock());
    } catch (err) {
      // The order is placed whatever the database says (it may have lost the connection, or timed
      // out): the row stays pending and the reconciler settles it by cloid. Never recorded as rejected.
      deps.log.warn({ cloid, oid: placed.oid, err: (err as Error).message }, "order placed but not recorded yet; the reconciler settles it");
    }
    const filled = placed.kind === "filled" ? { filled: { size: placed.totalSize, averagePrice: placed.averagePrice } } : {};
    const protectionState = protection ? { protection: protectionOf({ protection })! } : {};
    return { orderId: placed.oid, status: "submitted", timestamp: now, ...filled, ...protectionState };
  }

  /**
   * Sends a checked order: alone, or with its stop and target as one normalTpsl action. The
   * placement, and the children's records with the exchange's answer for each (null without any).
   */
  async function send(agent: Signer, order: CheckedOrder, row: { cloid: Cloid; protection: string | null }, opts: ActionOptions) {
    const entry = wireOrder(order, row.cloid);
    if (!order.children || !row.protection) return { placed: await exchange.placeOrder(agent, entry, opts), protection: null };
    const records = JSON.parse(row.protection) as ProtectionRecord[];
    const answer = await exchange.placeWithTpsl(agent, entry, order.children.map((c, i) => wireOrder(c, records[i]!.cloid)), opts);
    return { placed: answer.entry, protection: JSON.stringify(settleProtection(records, answer.children)) };
  }

  /** The exchange did not answer clearly: ask it by cloid now; the reconciler keeps asking after. */
  async function inDoubt(cloid: string, e: AppError): Promise<TradeResult> {
    await orders.updateOrder(db, cloid, { status: "unknown" }, clock());
    deps.log.warn({ cloid, err: e.message }, "order outcome in doubt; reconciling by cloid");
    const settled = await deps.reconciler.settle(cloid);
    if (settled && settled.status !== "unknown" && settled.status !== "pending") return outcomeOf(settled);
    throw new AppError("EXCHANGE_UNAVAILABLE", `${e.message}; the order's outcome is being reconciled`, {
      retryable: true, retryAfter: 5, details: { cloid }, cause: e,
    });
  }

  /** A reduce-only market order against the position; the whole position when no size is given. */
  async function closePosition(
    user: string, target: Target, input: { symbol: string; size?: string; vaultAddress?: string }, idempotencyKey?: string,
  ): Promise<TradeResult> {
    const position = (await exchange.accountState(target.account)).positions.find((p) => p.symbol === input.symbol);
    if (!position || position.size === "0") throw new AppError("NO_POSITION", `no open ${input.symbol} position`);
    const held = position.size.replace(/^-/, "");
    if (input.size !== undefined && compareDecimal(input.size, held) > 0) {
      throw new AppError("INVALID_INPUT", `size: the position is only ${held}`, {
        details: [{ field: "body.size", message: `at most the position size ${held}` }],
      });
    }
    const intent = closingIntent(position, input.size);
    return submit(user, target, intent, requestHash({ ...intent, vaultAddress: input.vaultAddress }), idempotencyKey);
  }

  /** Cancels one resting order of the target account. */
  async function cancel(target: Target, orderId: number) {
    const { account, subAccount } = target;
    const lookup = await exchange.orderStatus(account, orderId);
    // An order id of another account is "unknown" for this one: 404, never another user's data.
    if (!lookup.found) throw new AppError("NOT_FOUND", `no order ${orderId} on this account`);
    if (lookup.status !== "open") {
      await deps.orderSync.record(account, lookup);
      throw new AppError("ORDER_NOT_OPEN", `order ${orderId} is ${lookup.status}, not open`);
    }
    const market = (await exchange.markets()).find((m) => m.symbol === lookup.order.symbol);
    if (!market) throw new AppError("EXCHANGE_UNAVAILABLE", `the exchange no longer lists ${lookup.order.symbol}`);
    await exchange.cancelOrder(await agents.signerFor(account), { asset: market.asset, oid: orderId }, { subAccount })
      .finally(() => deps.reads.forget(account));
    await orders.settleResting(db, account, orderId, { status: "canceled" }, clock());
    await stops.canceledByDaemon(db, account, orderId, clock());
    return { orderId, status: "canceled" as const };
  }

  /**
   * Cancels the given resting orders of the target account, each on its own and all at once (the
   * nonce manager keeps one signer's nonces apart): one that fails does not keep the others from
   * going. An order already gone counts as canceled.
   */
  async function cancelOrders(target: Target, open: OpenOrderState[]): Promise<{ canceled: number; errors: AppError[] }> {
    if (open.length === 0) return { canceled: 0, errors: [] };
    const markets = await exchange.markets();
    const agent = await agents.signerFor(target.account);
    let canceled = 0;
    const errors: AppError[] = [];
    await Promise.all(open.map(async (o) => {
      const market = markets.find((m) => m.symbol === o.symbol);
      if (!market) {
        errors.push(new AppError("EXCHANGE_UNAVAILABLE", `the exchange no longer lists ${o.symbol}`));
        return;
      }
      try {
        await exchange.cancelOrder(agent, { asset: market.asset, oid: o.oid }, { subAccount: target.subAccount });
      } catch (err) {
        const e = asAppError(err, "order failed");
        // Closed some other way (filled, perhaps): the order sync asks the exchange how.
        if (e.code === "ORDER_NOT_OPEN") canceled += 1;
        else errors.push(e);
        return;
      }
      canceled += 1;
      // The cancel happened whatever the database says; a row not written now waits for the order sync.
      await orders.settleResting(db, target.account, o.oid, { status: "canceled" }, clock())
        .then(() => stops.canceledByDaemon(db, target.account, o.oid, clock()))
        .catch((err) => deps.log.warn({ oid: o.oid, err: (err as Error).message }, "cannot record a cancel yet"));
    }));
    deps.reads.forget(target.account);
    if (errors.some((e) => e.code === "AGENT_NOT_APPROVED")) await agents.forget(agent.address);
    return { canceled, errors };
  }

  /**
   * Closes a whole position with one reduce-only market order, as the venue's own Close does (it may
   * take a position below the minimum order value). `ttlMs` bounds how long the signed order can land,
   * so that an outcome in doubt is settled, one way or the other, that much sooner.
   */
  async function closeWhole(user: string, target: Target, position: { symbol: string; size: string }, ttlMs?: number): Promise<TradeResult> {
    const intent = closingIntent(position);
    return submit(user, target, intent, requestHash({ ...intent, vaultAddress: target.vaultAddress }), undefined, ttlMs);
  }

  /**
   * Closes `size` of a position with a reduce-only market order under a cloid the caller chose and
   * stored first (the stop keeper's close, settled by that cloid if its outcome is in doubt).
   */
  async function closeWithCloid(user: string, target: Target, position: { symbol: string; size: string }, size: string, cloid: Cloid, ttlMs?: number): Promise<TradeResult> {
    const intent = closingIntent(position, size);
    return submit(user, target, intent, requestHash({ ...intent, vaultAddress: target.vaultAddress, cloid }), undefined, ttlMs, cloid);
  }

  return { place, closePosition, cancel, cancelOrders, closeWhole, closeWithCloid };
}

export type TradingService = ReturnType<typeof createTradingService>;
