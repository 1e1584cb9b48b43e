// Vault events as the API renders them: each type's `data` (the type names are the one list in
// events/event-types.ts, and `vaultEventData` must have exactly one schema per name), the VaultEvent
// record of GET /api/vaults/:address/events, and the message of the GET /api/events stream.
import { z } from "zod";
import { USER_NOTICE_TYPES, VAULT_EVENT_TYPES, type UserNoticeType, type VaultEventType } from "../../events/event-types.js";
import { breachPolicy, dustPosition, unixSeconds, usdcText } from "../response-parts.js";

/** POST /api/events/ticket: single use, for GET /api/events?ticket=... */
export const eventTicket = z.object({ ticket: z.string(), expiresAt: unixSeconds });
export type EventTicket = z.infer<typeof eventTicket>;

const percent = z.number().meta({ description: "percent (10 means 10%)" });

const decimalText = (description: string) => z.string().meta({ description });
const triggerKind = z.enum(["sl", "tp"]).meta({ description: "sl: stop-loss; tp: take-profit" });

/** A protective trigger the daemon placed that fired without closing what it was to close. */
const stopFailed = z.object({
  symbol: z.string(), kind: triggerKind, triggerPrice: decimalText("the trigger price"),
  size: decimalText("what the trigger was to close, unsigned"),
  orderId: z.number().int().nullable().meta({ description: "the trigger's order id (null when the venue never gave one)" }),
  reason: z.string().meta({ description: "why it did not fill, as the exchange said or the daemon saw it" }),
}).meta({ description: "a stop-loss or take-profit fired but did not fill: the daemon closes the position at market, retrying until it holds" });

/** The daemon's own close after a StopFailed, once it filled. */
const stopFilled = z.object({
  symbol: z.string(), kind: triggerKind, triggerPrice: decimalText("the trigger price"),
  size: decimalText("the size the close filled, unsigned"), price: decimalText("the close's average fill price"),
  orderId: z.number().int().meta({ description: "the close's order id" }), attempts: z.number().int().meta({ description: "closes it took" }),
}).meta({ description: "the close that stands in for a stop that did not fill has filled" });

/** A fill the venue forced: a liquidation, or auto-deleveraging against the account. */
const forcedFill = (description: string) => z.object({
  tradeId: z.string(), symbol: z.string(), side: z.enum(["buy", "sell"]),
  size: decimalText("the size closed, unsigned"), price: decimalText("the fill price"),
  loss: decimalText("what the fill cost the account in USDC: its realized loss plus its fee (negative for a gain)"),
  markPrice: decimalText("the mark when it happened").optional(),
}).meta({ description });
const liquidated = forcedFill("the exchange liquidated (part of) a position");
const deleveraged = forcedFill("the exchange auto-deleveraged (part of) a position against the account");
const ofAccount = { account: z.string().meta({ description: "the exchange account" }) };

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
  DeadlineApproaching: z.object({
    deadline: unixSeconds.meta({ description: "the deal's deadline" }),
    hoursLeft: z.number().int().meta({ description: "whole hours from the event to the deadline (24 or fewer)" }),
  }).meta({ description: "recorded once per vault, 24 hours before its deal deadline" }),
  StopFailed: stopFailed,
  StopFilled: stopFilled,
  Liquidated: liquidated,
  Deleveraged: deleveraged,
  LimitNear: z.object({
    limit: z.enum(["max", "daily"]).meta({ description: "which drawdown limit" }),
    level: z.union([z.literal(80), z.literal(90)]).meta({ description: "percent of the limit the drawdown reached" }),
    drawdown: percent.meta({ description: "the drawdown, measured as the vault's terms measure it" }), limitPercent: percent.meta({ description: "the limit" }),
  }).meta({ description: "a drawdown reached 80% (then 90%) of its limit; each level fires once until the drawdown falls back below 70% of it" }),
} satisfies Record<VaultEventType, z.ZodType>;

/** Each notice type's `data` (notices addressed to one user; notices/user-notices.ts). */
export const userNoticeData = {
  ProposalSigned: z.object({
    proposal: z.number().int(), signedBy: z.string(), role: z.enum(["investor", "trader"]).meta({ description: "the signer's side" }),
    investor: z.string(), trader: z.string(), initialBalance: usdcText, dealDeadline: unixSeconds, validUntil: unixSeconds,
  }).meta({ description: "the other party signed the proposal: it waits for your signature" }),
  AgentExpiring: z.object({
    agent: z.string(), account: z.string(), vault: z.string().nullable(), validUntil: unixSeconds,
    daysLeft: z.number().int(),
  }).meta({ description: "the agent key trading the account expires within 7 days: approve its successor (npx tradevault agent approve)" }),
  AgentLapsed: z.object({ agent: z.string(), account: z.string(), vault: z.string().nullable(), validUntil: unixSeconds })
    .meta({ description: "the agent key trading the account has expired: no order can be placed until a new one is approved" }),
  StopFailed: stopFailed.extend(ofAccount),
  StopFilled: stopFilled.extend(ofAccount),
  Liquidated: liquidated.extend(ofAccount),
  Deleveraged: deleveraged.extend(ofAccount),
} satisfies Record<UserNoticeType, z.ZodType>;

export type UserNoticeDataOf<K extends UserNoticeType> = z.infer<(typeof userNoticeData)[K]>;

/** One event type's `data`. */
export type VaultEventDataOf<K extends VaultEventType> = z.infer<(typeof vaultEventData)[K]>;

const eventOf = <T extends VaultEventType>(type: T) =>
  z.object({
    id: z.number().int(), vault: z.string(), type: z.literal(type), time: unixSeconds,
    txHash: z.string().nullable(), blockNumber: z.number().int().nullable(), data: vaultEventData[type],
  });

/** A VaultEvent record; `type` tells the shape of `data`. */
type EventSchema = { [K in VaultEventType]: ReturnType<typeof eventOf<K>> }[VaultEventType];
export const vaultEvent = z.discriminatedUnion("type", VAULT_EVENT_TYPES.map((type) => eventOf(type)) as unknown as [EventSchema, ...EventSchema[]]);
export type VaultEvent = z.infer<typeof vaultEvent>;

/**
 * A message's `data` on the GET /api/events stream, for an event of `type`: the record's id, vault,
 * type and time with the fields of its `data` beside them (no txHash, no blockNumber).
 */
export const streamEvent = (type: VaultEventType) =>
  vaultEventData[type].extend({ id: z.number().int(), vault: z.string(), type: z.literal(type), time: unixSeconds });

/** A stream message's `data`, typed by its `type` (the dashboard and the CLI read these). */
export type StreamEvent = {
  [K in VaultEventType]: { id: number; vault: string; type: K; time: number } & VaultEventDataOf<K>;
}[VaultEventType];

const noticeOf = <T extends UserNoticeType>(type: T) =>
  z.object({ id: z.number().int(), type: z.literal(type), time: unixSeconds, data: userNoticeData[type] });
type NoticeSchema = { [K in UserNoticeType]: ReturnType<typeof noticeOf<K>> }[UserNoticeType];

/** A notice addressed to one user; `type` tells the shape of `data`. */
export const userNotice = z.discriminatedUnion("type", USER_NOTICE_TYPES.map((type) => noticeOf(type)) as unknown as [NoticeSchema, ...NoticeSchema[]]);

/** GET /api/notices. */
export const userNotices = z.object({ notices: z.array(userNotice), total: z.number().int(), hasMore: z.boolean() });
export type UserNoticesPage = z.infer<typeof userNotices>;
