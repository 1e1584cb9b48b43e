// Public surface of the sim exchange (Hyperliquid-compatible paper trading). The daemon's composition
// root imports only from here.
export { createSimExchange } from "./sim-exchange.js";
export type { AdlResult, FaucetResult, SimExchange, SimExchangeOptions, WithdrawalResult } from "./sim-exchange.js";
export type { FaultEndpoint, FaultKind, FaultSpec, PendingFault } from "./faults.js";
export { FaultSpecError } from "./fault-spec.js";
export type { PriceFeedConfig } from "./feed.js";
export type { MarkMoveResult } from "./engine/marks.js";
export type { RequestLogEntry } from "./server.js";
export type { SimEvent, SimEventListener } from "./sim-events.js";
export type { WsLimits } from "./ws.js";
export type { Market, MarketSpec, Network, SimLogger } from "./types.js";
export { DEFAULT_MARKETS } from "./markets.js";
export { ControlInputError, FaucetHookError } from "./controls.js";
