// Domain types shared by the sim's store, engine and HTTP handlers. Amounts are bigints at the
// sim's fixed scale (see num.ts) unless the field name says it is display text.

export type Network = "Mainnet" | "Testnet";
export type Tif = "Gtc" | "Ioc" | "Alo" | "FrontendMarket";

/** A perpetual market the sim lists. Its asset index is its position in the market list. */
export interface MarketSpec {
  name: string;
  szDecimals: number;
  maxLeverage: number;
  /** Mark price on first start (decimal text). */
  startPx: string;
}

export interface Market extends MarketSpec {
  asset: number;
}

/** The states an order can be in, with Hyperliquid's names (orderStatus `status`). */
export type OrderStatus =
  | "open"
  | "filled"
  | "canceled"
  | "reduceOnlyCanceled"
  | "liquidatedCanceled"
  | "marginCanceled"
  | "scheduledCancel"
  | "triggered"
  | "siblingFilledCanceled"
  | "rejected"
  | "tickRejected"
  | "minTradeNtlRejected"
  | "perpMarginRejected"
  | "reduceOnlyRejected"
  | "badAloPxRejected"
  | "iocCancelRejected";

export interface Order {
  oid: number;
  user: string;
  coin: string;
  isBuy: boolean;
  limitPx: bigint;
  /** Remaining size (0 once filled). */
  sz: bigint;
  origSz: bigint;
  tif: Tif | "LiquidationMarket";
  reduceOnly: boolean;
  cloid: string | null;
  status: OrderStatus;
  createdAt: number;
  statusAt: number;
  /** Set for a trigger (TP/SL) order; absent for a plain limit order. */
  trigger?: TriggerSpec;
}

/**
 * A trigger order's condition and where it stands: "waiting" (a normalTpsl child whose parent has not
 * filled), "untriggered" (watching the mark, off the book), "triggered" (fired: now a plain order).
 */
export interface TriggerSpec {
  px: bigint;
  tpsl: "tp" | "sl";
  isMarket: boolean;
  state: "waiting" | "untriggered" | "triggered";
  /** grouping positionTpsl: gone with the position; size 0 covers the whole position when it fires. */
  positionTpsl: boolean;
  /** The normalTpsl entry this child belongs to. */
  parentOid: number | null;
}

export interface Position {
  user: string;
  coin: string;
  /** Signed size: long > 0, short < 0. */
  szi: bigint;
  /** Cost basis of the open size (|szi| × entry price), kept exact so entry price never drifts. */
  entryNtl: bigint;
}

export interface Account {
  user: string;
  /** USDC cash: deposits + realized PnL - fees (6 decimals). */
  usdc: bigint;
  createdAt: number;
}

export interface Agent {
  address: string;
  user: string;
  /** "" for the unnamed agent. */
  name: string;
  validUntil: number;
  approvedAt: number;
}

/** One fill as Hyperliquid's userFills reports it (display strings already formatted). */
export interface FillRecord {
  coin: string;
  px: string;
  sz: string;
  side: "B" | "A";
  time: number;
  startPosition: string;
  dir: string;
  closedPnl: string;
  hash: string;
  oid: number;
  crossed: boolean;
  fee: string;
  tid: number;
  cloid?: string;
  feeToken: "USDC";
  twapId: null;
  /** A forced fill's: `liquidatedUser` the account liquidated (this one, or the underwater account an auto-deleveraging served). */
  liquidation?: { liquidatedUser: string; markPx: string; method: "market" | "backstop" };
}

export interface LedgerRecord {
  time: number;
  hash: string;
  delta: Record<string, unknown> & { type: string };
}

/** pino-compatible subset, so the daemon can pass its logger. */
export interface SimLogger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export const silentLogger: SimLogger = { debug() {}, info() {}, warn() {}, error() {} };
