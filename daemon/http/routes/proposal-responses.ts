// The answers of the proposal routes (proposal-routes.ts): terms in SPEC's units (percentages, USDC
// decimal text) and the EIP-712 typed data both parties sign.
import { z } from "zod";
import { BREACH_POLICY_CODES } from "../../vaults/breach-policies.js";
import { breachPolicy, profitShare, typedDataFor, uintText, unixSeconds, usdcText } from "../response-parts.js";

/** The vault terms both parties sign (proposals); the factory checks both signatures on-chain. */
export const vaultTermsTypedData = typedDataFor("VaultTerms", {
  investor: z.string(), trader: z.string(), exchangeAccount: z.string(), initialBalance: uintText.meta({ description: "USDC base units (6 decimals)" }),
  maxDrawdownBps: uintText, dailyDrawdownBps: uintText, dealDeadline: uintText, traderShareBps: uintText,
  breachPolicy: uintText.meta({ description: BREACH_POLICY_CODES }), validUntil: uintText, salt: z.string(),
});

/** Advisory notes the daemon adds to proposal answers (e.g. a balance the account does not hold). */
export const warning = z.object({ code: z.string(), message: z.string() });
export type Warning = z.infer<typeof warning>;

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
