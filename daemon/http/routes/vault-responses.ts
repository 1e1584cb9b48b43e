// The answers of the vault routes (vault-routes.ts): balances as USDC decimal text, SPEC's numbers
// (size, price, pnl, profit, shares, drawdowns) as JSON numbers.
import { z } from "zod";
import { breachPolicy, dustPosition, position, profitShare, typedDataFor, uintText, unixSeconds, usdcText } from "../response-parts.js";
import { vaultEvent } from "./event-responses.js";

const percent = (description: string) => z.number().meta({ description: `${description}, in percent (10 means 10%)` });

export const vaultSummary = z.object({
  address: z.string(), investor: z.string(), trader: z.string(),
  initialBalance: usdcText, currentBalance: usdcText,
  status: z.enum(["ACTIVE", "CLOSED"]), paused: z.boolean(), dealDeadline: unixSeconds, profitShare,
  maxDrawdown: percent("the maximum drawdown limit"), dailyDrawdown: percent("the daily drawdown limit"),
  currentDrawdown: percent("the drawdown from the peak at the last reading"),
  currentDailyDrawdown: percent("the drawdown from the day's first balance at the last reading"),
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

/** Why a paused vault paused (null while it is not). */
export const pauseReason = z.enum(["maxDrawdown", "dailyDrawdown", "both", "accountMode"]);

export const vaultDetail = vaultSummary.extend({
  exchangeAccount: z.string(), peakBalance: usdcText, dayStartBalance: usdcText, closed: z.boolean(),
  lastBalanceUpdate: unixSeconds.nullable(),
  pauseReason: pauseReason.nullable(),
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

export const vaultEvents = z.object({ events: z.array(vaultEvent), total: z.number().int(), hasMore: z.boolean() });
export type VaultEvents = z.infer<typeof vaultEvents>;

/** SPEC 2.13. */
export const vaultClose = z.object({
  vault: z.object({
    address: z.string(), status: z.literal("CLOSED"), finalBalance: usdcText,
    profit: z.number(), traderShare: z.number(), investorShare: z.number(),
    leftOpen: z.array(dustPosition).meta({ description: "positions the close left open because the exchange refused dust (valued at mark in finalBalance); usually empty" }),
    escrow: z.object({
      held: usdcText.meta({ description: "settlement tokens the vault's escrow holds" }),
      owedToTrader: usdcText.meta({ description: "the trader's share not yet paid out" }),
      toFund: usdcText.meta({ description: "what the investor must still fund for the trader to be paid in full (POST .../fund); 0 when the escrow covers it" }),
    }),
  }),
});
export type VaultClose = z.infer<typeof vaultClose>;

export const vaultUnpause = z.object({ vault: vaultSummary });
export type VaultUnpause = z.infer<typeof vaultUnpause>;

/** SPEC 2.14. */
export const withdrawal = z.object({ txHash: z.string(), amount: usdcText, recipient: z.string() });
export type Withdrawal = z.infer<typeof withdrawal>;

/** An EIP-2612 permit of the settlement token, signed by the investor to fund a vault's escrow. */
export const permitTypedData = typedDataFor("Permit", {
  owner: z.string(), spender: z.string(), value: uintText, nonce: uintText, deadline: uintText,
});

export const fundPrepare = z.object({ typedData: permitTypedData, amount: usdcText, deadline: unixSeconds, spender: z.string() });
export type FundPrepare = z.infer<typeof fundPrepare>;

export const fundResult = z.object({ txHash: z.string(), amount: usdcText });
export type FundResult = z.infer<typeof fundResult>;
