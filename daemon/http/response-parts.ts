// Pieces that responses of several route groups share: units, EIP-712 typed data, a position, the
// profit share, the breach policy (from its one table) and a position left open as dust. Each group's
// own responses sit beside its routes (routes/*-responses.ts); http/responses.ts re-exports them all.
import { z } from "zod";
import { BREACH_POLICIES, BREACH_POLICY_HELP } from "../vaults/breach-policies.js";

export const unixSeconds = z.number().int().meta({ description: "Unix seconds" });
export const usdcText = z.string().meta({ description: "USDC, decimal text" });
export const uintText = z.string().meta({ description: "an unsigned integer as decimal text" });

const eip712Field = z.object({ name: z.string(), type: z.string() });

/** EIP-712 typed data ready for eth_signTypedData_v4 (types include EIP712Domain, integers as decimal text). */
export const typedData = z.object({
  domain: z.object({ name: z.string(), version: z.string(), chainId: z.number().int(), verifyingContract: z.string() }),
  types: z.record(z.string(), z.array(eip712Field)),
  primaryType: z.string(),
  message: z.record(z.string(), z.string()),
});
export type TypedData = z.infer<typeof typedData>;

/** Typed data of one primary type, its message's fields named. */
export const typedDataFor = <M extends z.ZodRawShape>(primaryType: string, message: M) =>
  typedData.extend({ primaryType: z.literal(primaryType), message: z.object(message) });

/** SPEC 2.8 (GET /api/positions, and a vault's detail). */
export const position = z.object({
  symbol: z.string(), size: z.number(), entryPrice: z.number(), markPrice: z.number(),
  unrealizedPnl: z.number(), liquidationPrice: z.number().nullable(),
});
export type Position = z.infer<typeof position>;

/** Percentages of the profit, trader's and investor's (of a vault, and of proposed terms). */
export const profitShare = z.object({ trader: z.number(), investor: z.number() });

/** What a breach does to the trader's exposure (a signed term; see docs/vaults.md, "What a breach does to the positions"). */
export const breachPolicy = z.enum(BREACH_POLICIES).meta({ description: BREACH_POLICY_HELP });

/** A position left open because the exchange refused to close it: worth less than its minimum order value. */
export const dustPosition = z.object({
  symbol: z.string(), size: z.string().meta({ description: "signed decimal text" }), value: usdcText.meta({ description: "its value at mark" }),
});
