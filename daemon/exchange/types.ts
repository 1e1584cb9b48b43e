// The daemon's view of an exchange. Services depend on this interface only; the Hyperliquid
// adapter implements it for Hyperliquid itself and for the built-in sim (same wire protocol).
// Decimals are canonical decimal strings, never floats; times are Unix milliseconds.
import type { HDNodeWallet, Wallet } from "ethers";

/** The chain id user actions are signed for (Arbitrum Sepolia, as Python's SDK signs); the venue accepts any. */
export const SIGNATURE_CHAIN_ID = "0x66eee";

export type ExchangeKind = "sim" | "hyperliquid-testnet" | "hyperliquid";
export type Side = "buy" | "sell";
export type Tif = "Gtc" | "Ioc" | "Alo";
export type Cloid = `0x${string}`;
export type Signer = Wallet | HDNodeWallet;

export interface Market {
  symbol: string;
  /** Hyperliquid's asset index (position in `meta.universe`). */
  asset: number;
  szDecimals: number;
  maxLeverage: number;
}

export interface PositionState {
  symbol: string;
  /** Signed: negative for shorts. */
  size: string;
  entryPrice: string;
  positionValue: string;
  unrealizedPnl: string;
  liquidationPrice: string | null;
  marginUsed: string;
}

export interface AccountState {
  accountValue: string;
  withdrawable: string;
  totalMarginUsed: string;
  positions: PositionState[];
  time: number;
}

/** A trigger (TP/SL) order's condition as the venue shows it. */
export interface TriggerState {
  /** The mark price that fires it. */
  price: string;
  kind: TriggerKind;
  /** True: executes as a market order bounded by the order's price; false: a limit order at it. */
  market: boolean;
  /** It has fired (a fired limit trigger may still rest on the book). */
  triggered: boolean;
}

export type TriggerKind = "sl" | "tp";

export interface OpenOrderState {
  oid: number;
  symbol: string;
  side: Side;
  limitPrice: string;
  /** Remaining size. */
  size: string;
  origSize: string;
  cloid: Cloid | null;
  reduceOnly: boolean;
  timestamp: number;
  /** Set for a trigger (TP/SL) order, null for a plain limit order. */
  trigger: TriggerState | null;
  /** A normalTpsl entry's TP/SLs that wait for it to fill (they are no open orders of their own yet). */
  children: OpenOrderState[];
}

export interface FillState {
  tid: number;
  oid: number;
  symbol: string;
  side: Side;
  price: string;
  size: string;
  fee: string;
  closedPnl: string;
  time: number;
  cloid: Cloid | null;
  hash: string;
  /** Set when the venue forced the fill on the account (exchange/forced-fills.ts); null for a trade of its own. */
  forced: ForcedFill | null;
}

/** A fill the venue forced: a liquidation of the account, or auto-deleveraging against it. */
export interface ForcedFill {
  kind: "liquidation" | "deleveraging";
  /** The mark the venue stated with it (`liquidation.markPx`), when it did. */
  markPrice: string | null;
}

export type OrderLookup =
  | { found: false }
  | { found: true; status: string; order: OpenOrderState; statusTimestamp: number };

export interface OrderRequest {
  asset: number;
  isBuy: boolean;
  price: string;
  size: string;
  reduceOnly: boolean;
  /** Ignored for a trigger order (the venue fires a market trigger as IOC, a limit trigger as GTC). */
  tif: Tif;
  cloid: Cloid;
  /**
   * Makes it a trigger order (Hyperliquid's `{"trigger": {"isMarket", "triggerPx", "tpsl"}}`): it
   * waits off the book until the mark crosses `price`, then executes at `price` of the request
   * (for a market trigger, the worst price it accepts). The answer is "resting" with its oid.
   */
  trigger?: { price: string; kind: TriggerKind; market: boolean };
}

export type PlaceOutcome =
  | { kind: "resting"; oid: number }
  | { kind: "filled"; oid: number; totalSize: string; averagePrice: string };

/** What a normalTpsl child was answered: it waits for its entry's fill, or for its trigger once the entry filled. */
export type TpslChildOutcome =
  | PlaceOutcome
  | { kind: "waitingForFill" }
  | { kind: "waitingForTrigger" }
  | { kind: "rejected"; reason: string };

export interface ApprovedAgent {
  address: string;
  name: string;
  validUntil: number | null;
}

export interface LedgerUpdate {
  time: number;
  hash: string;
  type: string;
  /** USDC moved into (+) or out of (-) the account by this update; "0" when it moves none. */
  usdcDelta: string;
}

/** One funding payment of a perp position (Hyperliquid `userFunding`). */
export interface FundingPayment {
  time: number;
  symbol: string;
  /** USDC the account received (+) or paid (-). */
  usdc: string;
}

export interface SignedUserAction {
  action: Record<string, unknown>;
  nonce: number;
  signature: { r: string; s: string; v: number };
}

export interface ActionOptions {
  /** Hyperliquid's own vaultAddress (a sub-account the signer's master owns). */
  subAccount?: string;
  /** Unix ms after which the exchange must refuse the action (so an in-flight order cannot land late). */
  expiresAfter?: number;
  signal?: AbortSignal;
}

/** Background reads (the oracle, the order sync) may not spend the request budget kept back for trading. */
export interface ReadOptions {
  priority?: "trading" | "background";
}

export interface ExchangeAdapter {
  readonly kind: ExchangeKind;
  readonly url: string;
  readonly isTestnet: boolean;
  markets(): Promise<Market[]>;
  mids(opts?: ReadOptions): Promise<Record<string, string>>;
  accountState(user: string, opts?: ReadOptions): Promise<AccountState>;
  openOrders(user: string, opts?: ReadOptions): Promise<OpenOrderState[]>;
  fills(user: string, startTime: number, opts?: ReadOptions): Promise<FillState[]>;
  orderStatus(user: string, ref: number | Cloid, opts?: ReadOptions): Promise<OrderLookup>;
  approvedAgents(user: string, opts?: ReadOptions): Promise<ApprovedAgent[]>;
  ledgerUpdates(user: string, startTime: number, opts?: ReadOptions): Promise<LedgerUpdate[]>;
  /** Every funding payment of the account from `startTime` (Unix ms) on, oldest first. */
  fundingPayments(user: string, startTime: number, opts?: ReadOptions): Promise<FundingPayment[]>;
  placeOrder(agent: Signer, order: OrderRequest, opts?: ActionOptions): Promise<PlaceOutcome>;
  /**
   * An entry and its TP/SL trigger orders (reduce-only, other side) as one `normalTpsl` action: the
   * children start once the entry fills. Throws as placeOrder does when the action or the entry is
   * refused; a refused child is reported in its outcome (the entry stands).
   */
  placeWithTpsl(agent: Signer, entry: OrderRequest, children: OrderRequest[], opts?: ActionOptions): Promise<{ entry: PlaceOutcome; children: TpslChildOutcome[] }>;
  cancelOrder(agent: Signer, ref: { asset: number; oid: number }, opts?: ActionOptions): Promise<void>;
  relayUserAction(signed: SignedUserAction): Promise<void>;
  /** The account's abstraction mode (Hyperliquid `userAbstraction`: "default", "disabled", "unifiedAccount"...). */
  accountMode(user: string, opts?: ReadOptions): Promise<string>;
  /**
   * Arms the exchange's dead-man's switch for the agent's account: every open order is canceled at
   * `timeMs` unless armed again before (null disarms it). Refused below the venue's volume gate.
   */
  scheduleCancel(agent: Signer, timeMs: number | null, opts?: ActionOptions): Promise<void>;
}
