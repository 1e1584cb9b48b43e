// The Hyperliquid adapter, on the maintained @nktkas/hyperliquid SDK. The base URL decides where it
// goes: Hyperliquid mainnet or testnet, or the built-in sim on loopback. Same code path for all.
import { ApiRequestError, ExchangeClient, HttpTransport, InfoClient } from "@nktkas/hyperliquid";
import { monotonicNonces, type NonceSource } from "./nonces.js";
import { exchangeReason, rejectionError, translateExchangeError } from "./translate-error.js";
import { forcedKind } from "./forced-fills.js";
import { childOutcome, dec, orderWire, placeOutcome, side, toOpenOrder, type RawOrder } from "./order-wire.js";
import { typedDataSigner } from "./typed-data-signer.js";
import {
  type FundingPayment, SIGNATURE_CHAIN_ID,
  type AccountState, type ActionOptions, type ApprovedAgent, type Cloid, type ExchangeAdapter, type ExchangeKind, type FillState, type Market,
  type OrderLookup, type ReadOptions, type SignedUserAction, type Signer,
} from "./types.js";
import { HYPERLIQUID_WEIGHT, READ_WEIGHT, weightLimiter, type WeightLimiter } from "./weight-limiter.js";

export const MAINNET_URL = "https://api.hyperliquid.xyz";
export const TESTNET_URL = "https://api.hyperliquid-testnet.xyz";

export interface HyperliquidAdapterOptions {
  kind: ExchangeKind;
  /** Base URL, a path prefix allowed (the SDK's transport posts to `<url>/info` and `<url>/exchange`). */
  url: string;
  isTestnet: boolean;
  timeoutMs?: number;
  limiter?: WeightLimiter;
  nonces?: NonceSource;
  marketsTtlMs?: number;
  clock?: () => number;
}


/** How many funding payments the venue answers in one userFunding call at most. */
export const FUNDING_PAGE = 500;

export function createHyperliquidAdapter(opts: HyperliquidAdapterOptions): ExchangeAdapter {
  const clock = opts.clock ?? Date.now;
  // The SDK resolves "info" and "exchange" against apiUrl as relative URLs: a path in the base URL
  // (a proxy's prefix) is kept only when it ends in a slash.
  const apiUrl = opts.url.endsWith("/") ? opts.url : `${opts.url}/`;
  const transport = new HttpTransport({ apiUrl, isTestnet: opts.isTestnet, timeout: opts.timeoutMs ?? 10_000 });
  const info = new InfoClient({ transport });
  const limiter = opts.limiter ?? weightLimiter({ ...HYPERLIQUID_WEIGHT, clock });
  const nonces = opts.nonces ?? monotonicNonces(clock);
  const clients = new Map<string, ExchangeClient>();
  const marketsTtl = opts.marketsTtlMs ?? 5 * 60_000;
  let marketsCache: { at: number; value: Promise<Market[]> } | undefined;

  const clientFor = (signer: Signer) => {
    let client = clients.get(signer.address);
    if (!client) {
      client = new ExchangeClient({
        transport,
        wallet: typedDataSigner(signer),
        signatureChainId: SIGNATURE_CHAIN_ID,
        nonceManager: (address) => nonces.next(address),
      });
      clients.set(signer.address, client);
    }
    return client;
  };

  async function call<T>(what: string, weight: number, fn: () => Promise<T>, o: ReadOptions = {}): Promise<T> {
    await limiter.acquire(weight, { priority: o.priority ?? "trading" });
    try {
      return await fn();
    } catch (err) {
      throw translateExchangeError(err, what);
    }
  }

  const adapter: ExchangeAdapter = {
    kind: opts.kind,
    url: opts.url,
    isTestnet: opts.isTestnet,

    markets() {
      if (!marketsCache || clock() - marketsCache.at > marketsTtl) {
        const value = call("meta", READ_WEIGHT.markets, () => info.meta()).then((meta) =>
          meta.universe.map((u, asset) => ({ symbol: u.name, asset, szDecimals: u.szDecimals, maxLeverage: u.maxLeverage })),
        );
        marketsCache = { at: clock(), value };
        value.catch(() => (marketsCache = undefined));
      }
      return marketsCache.value;
    },

    mids: (o) => call("allMids", READ_WEIGHT.mids, () => info.allMids(), o) as Promise<Record<string, string>>,

    async accountState(user, o) {
      const s = await call("clearinghouseState", READ_WEIGHT.accountState, () => info.clearinghouseState({ user: user as `0x${string}` }), o);
      return {
        accountValue: dec(s.marginSummary.accountValue),
        withdrawable: dec(s.withdrawable),
        totalMarginUsed: dec(s.marginSummary.totalMarginUsed),
        time: s.time,
        positions: s.assetPositions.map(({ position: p }) => ({
          symbol: p.coin, size: dec(p.szi), entryPrice: dec(p.entryPx), positionValue: dec(p.positionValue),
          unrealizedPnl: dec(p.unrealizedPnl), liquidationPrice: p.liquidationPx === null ? null : dec(p.liquidationPx),
          marginUsed: dec(p.marginUsed),
        })),
      } satisfies AccountState;
    },

    async openOrders(user, o) {
      // frontendOpenOrders (same weight) carries the trigger fields openOrders lacks.
      const orders = await call("frontendOpenOrders", READ_WEIGHT.openOrders, () => info.frontendOpenOrders({ user: user as `0x${string}` }), o);
      return (orders as RawOrder[]).map(toOpenOrder);
    },

    async fills(user, startTime, o) {
      const fills = await call("userFillsByTime", READ_WEIGHT.fills, () =>
        info.userFillsByTime({ user: user as `0x${string}`, startTime, aggregateByTime: false }), o,
      );
      return fills.map((f) => ({
        tid: f.tid, oid: f.oid, symbol: f.coin, side: side(f.side), price: dec(f.px), size: dec(f.sz), fee: dec(f.fee),
        closedPnl: dec(f.closedPnl), time: f.time, cloid: (f.cloid ?? null) as Cloid | null, hash: f.hash,
        forced: forcedKind(f, user),
      })) satisfies FillState[];
    },

    async orderStatus(user, ref, o) {
      const r = await call("orderStatus", READ_WEIGHT.orderStatus, () => info.orderStatus({ user: user as `0x${string}`, oid: ref }), o);
      if (r.status !== "order") return { found: false };
      return {
        found: true, status: r.order.status, statusTimestamp: r.order.statusTimestamp, order: toOpenOrder(r.order.order as RawOrder),
      } satisfies OrderLookup;
    },

    async approvedAgents(user, o) {
      const agents = await call("extraAgents", READ_WEIGHT.approvedAgents, () => info.extraAgents({ user: user as `0x${string}` }), o);
      return agents.map((a) => ({ address: a.address, name: a.name, validUntil: a.validUntil ?? null })) satisfies ApprovedAgent[];
    },

    async ledgerUpdates(user, startTime, o) {
      const updates = await call("userNonFundingLedgerUpdates", READ_WEIGHT.ledgerUpdates, () =>
        info.userNonFundingLedgerUpdates({ user: user as `0x${string}`, startTime }), o,
      );
      return updates.map((u) => ({ time: u.time, hash: u.hash, type: u.delta.type, usdcDelta: usdcDelta(u.delta, user) }));
    },

    async fundingPayments(user, startTime, o) {
      const out: FundingPayment[] = [];
      // The venue answers at most FUNDING_PAGE payments a call: ask again after the last one seen.
      for (let from = startTime; ;) {
        const page = await call("userFunding", READ_WEIGHT.fundingPayments, () => info.userFunding({ user: user as `0x${string}`, startTime: from }), o);
        for (const p of page) out.push({ time: p.time, symbol: p.delta.coin, usdc: dec(p.delta.usdc) });
        if (page.length < FUNDING_PAGE) return out;
        from = page.at(-1)!.time + 1;
      }
    },

    async placeOrder(agent, order, o: ActionOptions = {}) {
      const response = await call("order", 1, () =>
        clientFor(agent).order(
          {
            orders: [orderWire(order)],
            grouping: "na",
          },
          { vaultAddress: o.subAccount as `0x${string}` | undefined, expiresAfter: o.expiresAfter, signal: o.signal },
        ),
      );
      const status = response.response.data.statuses[0] as unknown;
      const outcome = placeOutcome(status);
      if (outcome) return outcome;
      throw rejectionError(exchangeReason(response) ?? `unexpected order status ${JSON.stringify(status)}`);
    },

    async placeWithTpsl(agent, entry, children, o: ActionOptions = {}) {
      const response = await call("order", 1, () =>
        clientFor(agent)
          .order(
            { orders: [orderWire(entry), ...children.map(orderWire)], grouping: "normalTpsl" },
            { vaultAddress: o.subAccount as `0x${string}` | undefined, expiresAfter: o.expiresAfter, signal: o.signal },
          )
          // The SDK throws when any order of the batch failed; a refused child must not hide a placed entry.
          .catch((err: unknown) => statusesOf(err)),
      );
      const [first, ...rest] = response.response.data.statuses as unknown[];
      const placed = placeOutcome(first);
      if (!placed) throw rejectionError(exchangeReason({ response: { data: { statuses: [first] } } }) ?? exchangeReason(response) ?? "the entry was not placed");
      return { entry: placed, children: rest.map(childOutcome) };
    },

    async cancelOrder(agent, ref, o: ActionOptions = {}) {
      await call("cancel", 1, () =>
        clientFor(agent).cancel({ cancels: [{ a: ref.asset, o: ref.oid }] }, {
          vaultAddress: o.subAccount as `0x${string}` | undefined, signal: o.signal,
        }),
      );
    },

    accountMode: (user, o) => call("userAbstraction", READ_WEIGHT.accountMode, () => info.userAbstraction({ user: user as `0x${string}` }), o),

    async scheduleCancel(agent, timeMs, o: ActionOptions = {}) {
      await call("scheduleCancel", 1, () =>
        clientFor(agent).scheduleCancel(timeMs === null ? {} : { time: timeMs }, {
          vaultAddress: o.subAccount as `0x${string}` | undefined, signal: o.signal,
        }),
      );
    },

    async relayUserAction(signed: SignedUserAction) {
      const response = await call("approveAgent", 1, () => transport.request("exchange", signed));
      const reason = exchangeReason(response);
      if (reason) throw rejectionError(reason);
    },
  };
  return adapter;
}

/** An order action's answer that the SDK threw for because some order failed; anything else rethrown. */
function statusesOf(err: unknown): { response: { data: { statuses: unknown[] } } } {
  if (err instanceof ApiRequestError) {
    const response = err.response as { status?: string; response?: { data?: { statuses?: unknown[] } } };
    const statuses = response?.status === "ok" ? response.response?.data?.statuses : undefined;
    if (statuses) return { response: { data: { statuses } } };
  }
  throw err;
}

/** USDC an external ledger update moved into (+) or out of (-) `user`'s perp account. */
function usdcDelta(delta: { type: string } & Record<string, unknown>, user: string): string {
  const me = user.toLowerCase();
  const amount = (key: string) => (typeof delta[key] === "string" ? dec(delta[key] as string) : "0");
  const negate = (s: string) => (s === "0" ? s : s.startsWith("-") ? s.slice(1) : `-${s}`);
  switch (delta.type) {
    case "deposit":
      return amount("usdc");
    case "withdraw":
      return negate(amount("usdc"));
    case "internalTransfer":
    case "send": {
      const into = String(delta.destination ?? "").toLowerCase() === me;
      const value = amount(delta.type === "send" ? "amount" : "usdc");
      return into ? value : negate(value);
    }
    case "subAccountTransfer":
      return String(delta.destination ?? "").toLowerCase() === me ? amount("usdc") : negate(amount("usdc"));
    case "accountClassTransfer":
      return delta.toPerp ? amount("usdc") : negate(amount("usdc"));
    default:
      return "0";
  }
}
