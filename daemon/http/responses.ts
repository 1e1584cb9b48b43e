// The `data` of each success response, as zod schemas (for the routes' `response:` and the OpenAPI
// document) and as types (for clients: the CLI imports these with `import type` only, so it never
// loads daemon code at run time). Shapes follow the routes and their render helpers as they answer
// today; a test parses live answers with them, so a drift shows up as a failing test.
import { z } from "zod";
import { VAULT_EVENT_TYPES, type VaultEventType } from "../events/event-types.js";
import { BREACH_POLICIES, BREACH_POLICY_CODES, BREACH_POLICY_HELP } from "../vaults/breach-policies.js";

const unixSeconds = z.number().int().meta({ description: "Unix seconds" });
const usdcText = z.string().meta({ description: "USDC, decimal text" });

const eip712Field = z.object({ name: z.string(), type: z.string() });
const uintText = z.string().meta({ description: "an unsigned integer as decimal text" });

/** EIP-712 typed data ready for eth_signTypedData_v4 (types include EIP712Domain, integers as decimal text). */
export const typedData = z.object({
  domain: z.object({ name: z.string(), version: z.string(), chainId: z.number().int(), verifyingContract: z.string() }),
  types: z.record(z.string(), z.array(eip712Field)),
  primaryType: z.string(),
  message: z.record(z.string(), z.string()),
});
export type TypedData = z.infer<typeof typedData>;

const typedDataFor = <M extends z.ZodRawShape>(primaryType: string, message: M) =>
  typedData.extend({ primaryType: z.literal(primaryType), message: z.object(message) });

/** Hyperliquid's approveAgent, signed by the master key (GET /api/agent). */
export const approveAgentTypedData = typedDataFor("HyperliquidTransaction:ApproveAgent", {
  hyperliquidChain: z.enum(["Mainnet", "Testnet"]), agentAddress: z.string(), agentName: z.string(), nonce: uintText,
});

/** The vault terms both parties sign (proposals); the factory checks both signatures on-chain. */
export const vaultTermsTypedData = typedDataFor("VaultTerms", {
  investor: z.string(), trader: z.string(), exchangeAccount: z.string(), initialBalance: uintText.meta({ description: "USDC base units (6 decimals)" }),
  maxDrawdownBps: uintText, dailyDrawdownBps: uintText, dealDeadline: uintText, traderShareBps: uintText,
  breachPolicy: uintText.meta({ description: BREACH_POLICY_CODES }), validUntil: uintText, salt: z.string(),
});

/** An EIP-2612 permit of the settlement token, signed by the investor to fund a vault's escrow. */
export const permitTypedData = typedDataFor("Permit", {
  owner: z.string(), spender: z.string(), value: uintText, nonce: uintText, deadline: uintText,
});

/** Advisory notes the daemon adds to proposal answers (e.g. a balance the account does not hold). */
export const warning = z.object({ code: z.string(), message: z.string() });
export type Warning = z.infer<typeof warning>;

// ---- sign-in, account and agent ----

export const challenge = z.object({ message: z.string(), nonce: z.string() });
export type Challenge = z.infer<typeof challenge>;

export const login = z.object({ user: z.object({ address: z.string(), sessionToken: z.string() }) });
export type Login = z.infer<typeof login>;

/** GET /api/auth/session: who this request is signed in as; `user: null` without a valid session (never a 401). */
export const currentSession = z.object({
  user: z.object({ address: z.string(), expiresAt: unixSeconds.meta({ description: "when the session expires unless used again" }) }).nullable(),
});
export type CurrentSession = z.infer<typeof currentSession>;

/** POST /api/auth/logout answers an empty object. */
export const loggedOut = z.object({});

/** POST /api/events/ticket: single use, for GET /api/events?ticket=... */
export const eventTicket = z.object({ ticket: z.string(), expiresAt: unixSeconds });
export type EventTicket = z.infer<typeof eventTicket>;

export const account = z.object({
  address: z.string(),
  session: z.object({ expiresAt: unixSeconds }),
  exchange: z.object({
    kind: z.string(),
    available: z.boolean(),
    accountValue: usdcText.optional(),
    withdrawable: usdcText.optional(),
    marginUsed: usdcText.optional(),
    openPositions: z.number().int().optional(),
    error: z.string().optional(),
  }),
  agent: z.object({ address: z.string(), approved: z.boolean(), validUntil: unixSeconds.nullable() }).nullable(),
});
export type Account = z.infer<typeof account>;

export const agentStatus = z.object({
  agentAddress: z.string(),
  approved: z.boolean(),
  validUntil: unixSeconds.nullable(),
  approval: z.object({ nonce: z.number().int(), typedData: approveAgentTypedData }).optional(),
});
export type AgentStatus = z.infer<typeof agentStatus>;

// ---- trading ----

/** What an order filled at once, as the exchange answered its placement (no extra read: GET /api/orders/:orderId lists each fill). */
export const tradeFill = z.object({
  status: z.literal("filled").meta({ description: "nothing of the order rests: all of it filled, or (IOC, market) the rest was canceled" }),
  size: z.number().meta({ description: "the size filled; less than ordered when an IOC filled only in part" }),
  averagePrice: z.number().meta({ description: "size-weighted average price of the fills" }),
});
export type TradeFill = z.infer<typeof tradeFill>;

/** SPEC 2.5, and `fill`; the answer of POST /api/trade and POST /api/positions/close. */
export const tradeResult = z.object({
  orderId: z.number().int(),
  status: z.literal("submitted"),
  timestamp: z.number().int().meta({ description: "Unix milliseconds" }),
  fill: tradeFill.optional().meta({ description: "present when the order filled at once (a market order, a limit order that crossed and rests no more)" }),
});
export type TradeResult = z.infer<typeof tradeResult>;

export const openOrder = z.object({
  orderId: z.number().int(), symbol: z.string(), side: z.enum(["buy", "sell"]), size: z.number(), price: z.number(), status: z.literal("resting"),
});
export const openOrders = z.object({ orders: z.array(openOrder) });
export type OpenOrders = z.infer<typeof openOrders>;

export const orderFill = z.object({
  price: z.number(), size: z.number(), fee: z.number(), closedPnl: z.number(),
  time: z.number().int().meta({ description: "Unix milliseconds" }), tradeId: z.number().int(),
});
export type OrderFill = z.infer<typeof orderFill>;

export const orderStatus = z.enum(["pending", "resting", "filled", "canceled", "rejected", "unknown"]);

export const oneOrder = z.object({
  order: z.object({
    orderId: z.number().int(), symbol: z.string(), side: z.enum(["buy", "sell"]),
    size: z.number(), remaining: z.number(), price: z.number(),
    status: orderStatus, exchangeStatus: z.string(), cloid: z.string().nullable(),
    timestamp: z.number().int().meta({ description: "Unix milliseconds" }), statusTimestamp: z.number().int(),
    fills: z.array(orderFill),
  }),
});
export type OneOrder = z.infer<typeof oneOrder>;

export const cancelResult = z.object({ orderId: z.number().int(), status: z.literal("canceled") });
export type CancelResult = z.infer<typeof cancelResult>;

export const position = z.object({
  symbol: z.string(), size: z.number(), entryPrice: z.number(), markPrice: z.number(),
  unrealizedPnl: z.number(), liquidationPrice: z.number().nullable(),
});
export type Position = z.infer<typeof position>;
export const positions = z.object({ positions: z.array(position) });
export type Positions = z.infer<typeof positions>;

// ---- vaults ----

const profitShare = z.object({ trader: z.number(), investor: z.number() });
/** What a breach does to the trader's exposure (a signed term; see README "Breach policies"). */
export const breachPolicy = z.enum(BREACH_POLICIES).meta({ description: BREACH_POLICY_HELP });

export const vaultSummary = z.object({
  address: z.string(), investor: z.string(), trader: z.string(),
  initialBalance: usdcText, currentBalance: usdcText,
  status: z.enum(["ACTIVE", "CLOSED"]), paused: z.boolean(), dealDeadline: unixSeconds, profitShare,
});
export type VaultSummary = z.infer<typeof vaultSummary>;
export const vaultList = z.object({ vaults: z.array(vaultSummary) });
export type VaultList = z.infer<typeof vaultList>;

export const vaultTrade = z.object({
  id: z.string(), symbol: z.string(), side: z.string(), size: z.number(), price: z.number(), pnl: z.number(), fee: z.number(),
  timestamp: unixSeconds,
});
export type VaultTrade = z.infer<typeof vaultTrade>;

const settlement = z.object({
  funded: usdcText,
  finalBalance: usdcText.optional(), profit: z.number().optional(), traderShare: z.number().optional(), investorShare: z.number().optional(),
  paidTrader: usdcText.optional(), paidInvestor: usdcText.optional(),
});

/** A paused vault's breach policy against its exchange account (docs/design.md "Enforcement"). */
export const enforcement = z.object({
  state: z.enum(["holds", "enforcing", "failing"]).meta({
    description: "holds: the account holds what the policy allows; enforcing: acting on it; failing: out of policy for more than two oracle cycles, or an error retrying cannot fix (see lastError)",
  }),
  since: unixSeconds.meta({ description: "since when the vault is in this state" }),
  attempts: z.number().int().meta({ description: "runs that found the account out of policy during this pause" }),
  lastError: z.string().nullable(),
});

/** A position left open because the exchange refused to close it: worth less than its minimum order value. */
const dustPosition = z.object({
  symbol: z.string(), size: z.string().meta({ description: "signed decimal text" }), value: usdcText.meta({ description: "its value at mark" }),
});

export const vaultDetail = vaultSummary.extend({
  exchangeAccount: z.string(), peakBalance: usdcText, dayStartBalance: usdcText, closed: z.boolean(),
  maxDrawdown: z.number(), dailyDrawdown: z.number(), currentDrawdown: z.number(), currentDailyDrawdown: z.number(),
  lastBalanceUpdate: unixSeconds.nullable(),
  pauseReason: z.enum(["maxDrawdown", "dailyDrawdown", "both", "accountMode"]).nullable(),
  breachPolicy,
  /** The exchange account's abstraction mode as last read (Hyperliquid userAbstraction); null until read. */
  accountMode: z.string().nullable(),
  settlement, trades: z.array(vaultTrade), positions: z.array(position),
  positionsAvailable: z.boolean().meta({ description: "false when the exchange could not be read: `positions` is then empty, not known to be" }),
  enforcement: enforcement.nullable().meta({ description: "how the breach policy is enforced while the vault is paused; null while it is not paused" }),
});
export type VaultDetail = z.infer<typeof vaultDetail>;
export const vaultDetailResponse = z.object({ vault: vaultDetail });
export type VaultDetailResponse = z.infer<typeof vaultDetailResponse>;

export const vaultTrades = z.object({ trades: z.array(vaultTrade), total: z.number().int(), hasMore: z.boolean() });
export type VaultTrades = z.infer<typeof vaultTrades>;

const percent = z.number().meta({ description: "percent (10 means 10%)" });

/** Each event type's `data`: USDC amounts as decimal text, limits and drawdowns in percent (as the vault endpoints). */
export const vaultEventData = {
  VaultCreated: z.object({
    factory: z.string(), investor: z.string(), trader: z.string(), exchangeAccount: z.string(), initialBalance: usdcText,
    maxDrawdown: percent, dailyDrawdown: percent, dealDeadline: unixSeconds, traderShare: percent,
    breachPolicy, validUntil: unixSeconds,
    salt: z.string(), termsHash: z.string(),
  }),
  BalanceUpdated: z.object({
    balance: usdcText, peakBalance: usdcText, dayStartBalance: usdcText, observedAt: unixSeconds, drawdown: percent, dailyDrawdown: percent,
  }),
  Paused: z.object({
    reason: z.number().int().meta({ description: "bit 1: max drawdown, bit 2: daily drawdown; 4: the operator's (the account's mode changed)" }), maxDrawdown: z.boolean(), dailyDrawdown: z.boolean(),
  }),
  Unpaused: z.object({ by: z.string() }),
  Closed: z.object({ by: z.string(), finalBalance: usdcText, profit: usdcText, traderShare: usdcText, investorShare: usdcText }),
  Funded: z.object({ from: z.string(), amount: usdcText }),
  Withdrawn: z.object({ party: z.string(), amount: usdcText }),
  Fill: z.object({
    tradeId: z.string(), orderId: z.number().int(), symbol: z.string(), side: z.enum(["buy", "sell"]),
    size: z.string(), price: z.string(), pnl: z.string(), fee: z.string(),
  }).meta({ description: "a fill of the vault's account; numbers as exact decimal text" }),
  BalanceMismatch: z.object({ expected: usdcText, observed: usdcText }).meta({ description: "the first reading differs from initialBalance" }),
  OrdersCanceled: z.object({
    reason: z.string(), count: z.number().int(),
    attempts: z.number().int().optional().meta({ description: "runs it took (absent on events recorded before enforcement was a reconciliation)" }),
  }).meta({ description: "a paused vault holds its breach policy: the resting orders the policy does not allow are canceled" }),
  Flattened: z.object({
    reason: z.enum(["paused", "close"]).meta({ description: "paused: the breach policy 'flatten'; close: the vault's close" }),
    canceledOrders: z.number().int(),
    positions: z.array(z.object({
      symbol: z.string(), size: z.string().meta({ description: "the position closed (signed decimal text)" }), orderId: z.number().int(),
      filledSize: z.string().nullable(), averagePrice: z.string().nullable(),
    })),
    dust: z.array(dustPosition).optional().meta({ description: "positions left open: the exchange refused to close them below its minimum order value" }),
    attempts: z.number().int().optional(),
  }).meta({ description: "every order canceled and every position closed (but refused dust): the 'flatten' policy after a breach, or a vault's close" }),
  EnforcementFailing: z.object({
    policy: breachPolicy, since: unixSeconds.meta({ description: "since when the vault is out of policy" }), attempts: z.number().int(), error: z.string(),
  }).meta({ description: "a paused vault has not held its breach policy for more than two oracle cycles; the daemon keeps trying" }),
  AccountModeChanged: z.object({ from: z.string().nullable(), to: z.string(), valued: z.boolean() })
    .meta({ description: "the exchange account's abstraction mode changed (valued: the oracle can value the new mode)" }),
} satisfies Record<VaultEventType, z.ZodType>;

const eventOf = <T extends keyof typeof vaultEventData>(type: T) =>
  z.object({
    id: z.number().int(), vault: z.string(), type: z.literal(type), time: unixSeconds,
    txHash: z.string().nullable(), blockNumber: z.number().int().nullable(), data: vaultEventData[type],
  });

/** A VaultEvent record; `type` tells the shape of `data`. */
type EventSchema = { [K in VaultEventType]: ReturnType<typeof eventOf<K>> }[VaultEventType];
export const vaultEvent = z.discriminatedUnion("type", VAULT_EVENT_TYPES.map((type) => eventOf(type)) as unknown as [EventSchema, ...EventSchema[]]);
export type VaultEvent = z.infer<typeof vaultEvent>;
export const vaultEvents = z.object({ events: z.array(vaultEvent), total: z.number().int(), hasMore: z.boolean() });
export type VaultEvents = z.infer<typeof vaultEvents>;

/** SPEC 2.13. */
export const vaultClose = z.object({
  vault: z.object({
    address: z.string(), status: z.literal("CLOSED"), finalBalance: usdcText,
    profit: z.number(), traderShare: z.number(), investorShare: z.number(),
    leftOpen: z.array(dustPosition).meta({ description: "positions the close left open because the exchange refused dust (valued at mark in finalBalance); usually empty" }),
  }),
});
export type VaultClose = z.infer<typeof vaultClose>;

export const vaultUnpause = z.object({ vault: vaultSummary });
export type VaultUnpause = z.infer<typeof vaultUnpause>;

/** SPEC 2.14. */
export const withdrawal = z.object({ txHash: z.string(), amount: usdcText, recipient: z.string() });
export type Withdrawal = z.infer<typeof withdrawal>;

export const fundPrepare = z.object({ typedData: permitTypedData, amount: usdcText, deadline: unixSeconds, spender: z.string() });
export type FundPrepare = z.infer<typeof fundPrepare>;

export const fundResult = z.object({ txHash: z.string(), amount: usdcText });
export type FundResult = z.infer<typeof fundResult>;

// ---- proposals ----

export const proposal = z.object({
  id: z.number().int(), status: z.enum(["PENDING", "ACCEPTED", "REJECTED", "EXPIRED", "FAILED"]),
  investor: z.string(), trader: z.string(), exchangeAccount: z.string(), initialBalance: usdcText,
  maxDrawdown: z.number(), dailyDrawdown: z.number(), dealDeadline: unixSeconds, profitShare, breachPolicy, validUntil: unixSeconds,
  signedBy: z.object({ investor: z.boolean(), trader: z.boolean() }),
  vaultAddress: z.string().nullable(), createTx: z.string().nullable(), relayError: z.string().nullable(),
  rejectedBy: z.string().nullable(), createdBy: z.string(), createdAt: unixSeconds,
  typedData: vaultTermsTypedData,
});
export type Proposal = z.infer<typeof proposal>;

/** POST /api/proposals, GET /api/proposals/:id: the proposal, and what both parties should know before signing. */
export const proposalResponse = z.object({ proposal, warnings: z.array(warning) });
export type ProposalResponse = z.infer<typeof proposalResponse>;

/** POST /api/proposals/:id/accept and /reject. */
export const proposalAction = z.object({ proposal });
export type ProposalAction = z.infer<typeof proposalAction>;

export const proposalList = z.object({ proposals: z.array(proposal), total: z.number().int(), hasMore: z.boolean() });
export type ProposalList = z.infer<typeof proposalList>;

// ---- the daemon itself ----

/** GET /healthz's data (the same when ready and when not). */
export const health = z.object({
  status: z.enum(["ok", "unavailable"]), version: z.string(), uptimeSeconds: z.number().int(),
  database: z.object({ status: z.enum(["ok", "error"]), network: z.string() }),
  exchange: z.object({
    kind: z.string(), url: z.string(), isTestnet: z.boolean(),
    weightLastMinute: z.number().nullable().meta({ description: "request weight spent in the last 60 s, all callers (the venue allows 1200)" }),
  }),
  priceStream: z.object({
    state: z.enum(["connecting", "open", "down", "off"]), lastMessageAgeSeconds: z.number().int().nullable(), connects: z.number().int(),
    breachMarginPoints: z.number(), earlyWrites: z.number().int(),
    downSeconds: z.number().int().nullable().meta({ description: "seconds since the stream last carried data (null while it does, and when off)" }),
    degraded: z.boolean().meta({ description: "down for more than three oracle intervals; the oracle still polls, so /healthz stays 200" }),
  }),
  sim: z.object({
    controls: z.enum(["open", "operator", "off"]).meta({ description: "who may POST /api/sim/price: any signed-in user, the operator token's holder, nobody (--sim-controls)" }),
  }).nullable().meta({ description: "the embedded sim's API controls (null: no embedded sim, no /api/sim routes)" }),
  chain: z.object({
    kind: z.enum(["embedded", "external"]), chainId: z.number().int(), rpcUrl: z.string(), factory: z.string(), settlementToken: z.string(),
    operator: z.string(), operatorBalance: z.string().nullable().meta({ description: "wei, decimal text" }),
    height: z.number().int().nullable().meta({ description: "the chain's block height (null when it did not answer)" }),
    snapshotAgeSeconds: z.number().int().nullable().meta({ description: "embedded chain: age of the newest snapshot (null before the first, and on an external chain)" }),
  }),
  enforcement: z.object({
    outOfPolicy: z.number().int().meta({ description: "paused vaults whose exchange account does not hold their breach policy yet" }),
    oldestSeconds: z.number().int().meta({ description: "how long the longest of them has been out of policy (0 with none)" }),
  }),
  deadMan: z.object({
    seconds: z.number().int().nullable().meta({ description: "--dead-man-seconds (null: off)" }),
    accounts: z.array(z.object({
      account: z.string(), vault: z.string(), armed: z.boolean(), cancelsAt: unixSeconds.nullable(),
      error: z.string().nullable().meta({ description: "the exchange's refusal, e.g. its volume gate" }), triedAt: unixSeconds,
    })),
  }),
  oracle: z.object({
    status: z.enum(["ok", "down"]), intervalSeconds: z.number(), lastCycleAt: unixSeconds.nullable(), lastResult: z.enum(["ok", "error"]).nullable(),
    lastError: z.string().nullable(), lastSuccessAt: unixSeconds.nullable(), activeVaults: z.number().int(), durationMs: z.number().nullable(),
    ageSeconds: z.number(),
  }),
});
export type Health = z.infer<typeof health>;
export const healthReady = z.object({ ok: z.literal(true), data: health });
/** 503: not ready; the data says which part is down. */
export const healthNotReady = z.object({
  ok: z.literal(false), data: health, error: z.object({ code: z.literal("SERVICE_UNAVAILABLE"), message: z.string() }),
});

/** GET /api/openapi.json: the document itself (its paths are described by OpenAPI 3.1, not here). */
export const openApiDocument = z.object({
  openapi: z.literal("3.1.0"),
  info: z.object({ title: z.string(), version: z.string(), description: z.string() }),
  servers: z.array(z.object({ url: z.string() })),
  components: z.object({ securitySchemes: z.record(z.string(), z.record(z.string(), z.string())) }),
  paths: z.record(z.string(), z.record(z.string(), z.record(z.string(), z.unknown()))),
});

// ---- sim controls (embedded sim only) ----

/** POST /api/sim/faucet: the credit and the account's USDC after it (decimal text). */
export const simFaucet = z.object({
  user: z.string(), amount: z.string(), usdc: z.string(),
  leftToday: z.string().meta({ description: "USDC this account may still take from the faucet today (UTC), decimal text" }),
});
export type SimFaucet = z.infer<typeof simFaucet>;
/** POST /api/sim/price: the resting orders the move filled and the accounts it liquidated. */
export const simPrice = z.object({ filledOids: z.array(z.number().int()), liquidated: z.array(z.string()) });
export type SimPrice = z.infer<typeof simPrice>;
