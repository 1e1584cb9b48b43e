// Proposals (SPEC 4.16 and the vaults issue): create, list, show, accept with an EIP-712
// signature, reject. Terms use SPEC's names and units: percentages and USDC decimal strings.
import { z } from "zod";
import type { ProposalRow } from "../../db/schema.js";
import { bpsToPercent, baseUnitsToUsdc, percentToBps, usdcToBaseUnits } from "../../vaults/units.js";
import { typedDataOf, type ProposalService } from "../../vaults/proposal-service.js";
import { defineRoute } from "../route.js";
import { address, signature } from "../schemas.js";

const converted = <T>(fn: (v: unknown) => T, message: string) =>
  z.union([z.number(), z.string()]).transform((v, ctx) => {
    try {
      return fn(v);
    } catch {
      ctx.addIssue({ code: "custom", message });
      return z.NEVER;
    }
  });

const limitPercent = converted(percentToBps, "must be a percentage with at most 2 decimals")
  .refine((bps) => bps > 0 && bps <= 10_000, "must be more than 0 and at most 100");
const sharePercent = converted(percentToBps, "must be a percentage with at most 2 decimals")
  .refine((bps) => bps >= 0 && bps <= 10_000, "must be between 0 and 100");
const usdc = converted(usdcToBaseUnits, "must be a USDC amount with at most 6 decimals").refine((u) => u > 0n, "must be more than 0");
const unixSeconds = z.number().int().positive().max(2 ** 40).meta({ description: "Unix seconds" });

export const pagination = z
  .object({
    limit: z.coerce.number().int().min(1).max(1000).default(100),
    offset: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(0),
  })
  .strict();

const idParams = z.object({ id: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER) });

export function renderProposal(p: ProposalRow) {
  return {
    id: p.id,
    status: p.status,
    investor: p.investor,
    trader: p.trader,
    exchangeAccount: p.exchange_account,
    initialBalance: baseUnitsToUsdc(p.initial_balance),
    maxDrawdown: bpsToPercent(p.max_drawdown_bps),
    dailyDrawdown: bpsToPercent(p.daily_drawdown_bps),
    dealDeadline: p.deal_deadline,
    profitShare: { trader: bpsToPercent(p.trader_share_bps), investor: bpsToPercent(10_000 - p.trader_share_bps) },
    validUntil: p.valid_until,
    signedBy: { investor: p.investor_signature !== null, trader: p.trader_signature !== null },
    vaultAddress: p.vault_address,
    createTx: p.create_tx,
    relayError: p.relay_error,
    rejectedBy: p.rejected_by,
    createdBy: p.created_by,
    createdAt: Math.floor(p.created_at / 1000),
    typedData: typedDataOf(p),
  };
}

export function proposalRoutes(proposals: ProposalService) {
  const errors = ["INVALID_INPUT", "UNAUTHENTICATED", "NOT_FOUND"] as const;
  return [
    defineRoute({
      method: "post", path: "/api/proposals", tag: "proposals", auth: true,
      summary: "Propose vault terms to a counterparty; both then sign the returned typedData",
      body: z.object({
        investor: address,
        trader: address,
        exchangeAccount: address.optional(),
        initialBalance: usdc,
        maxDrawdown: limitPercent,
        dailyDrawdown: limitPercent,
        dealDeadline: unixSeconds,
        profitShare: z.object({ trader: sharePercent, investor: sharePercent }).strict()
          .refine((s) => s.trader + s.investor === 10_000, { message: "trader and investor shares must add up to 100" }),
        validUntil: unixSeconds.optional(),
      }).strict(),
      errors: [...errors],
      handler: async ({ body, user }) => ({
        proposal: renderProposal(await proposals.create(user.address, {
          investor: body.investor, trader: body.trader, exchangeAccount: body.exchangeAccount, initialBalance: body.initialBalance,
          maxDrawdownBps: body.maxDrawdown, dailyDrawdownBps: body.dailyDrawdown, dealDeadline: body.dealDeadline,
          traderShareBps: body.profitShare.trader, validUntil: body.validUntil,
        })),
      }),
    }),
    defineRoute({
      method: "get", path: "/api/proposals", tag: "proposals", auth: true, query: pagination,
      summary: "Proposals where you are investor or trader, newest first",
      errors: [...errors],
      handler: async ({ query, user }) => {
        const { rows, total } = await proposals.list(user.address, query.limit, query.offset);
        return { proposals: rows.map(renderProposal), total, hasMore: query.offset + rows.length < total };
      },
    }),
    defineRoute({
      method: "get", path: "/api/proposals/:id", tag: "proposals", auth: true, params: idParams,
      summary: "One proposal with its typed data and who has signed",
      errors: [...errors],
      handler: async ({ params, user }) => ({ proposal: renderProposal(await proposals.load(user.address, params.id)) }),
    }),
    defineRoute({
      method: "post", path: "/api/proposals/:id/accept", tag: "proposals", auth: true, params: idParams,
      summary: "Sign the terms (EIP-712 signature of typedData); when both parties have, the vault is deployed",
      body: z.object({ signature }).strict(),
      errors: [...errors, "CONFLICT"],
      handler: async ({ params, body, user }) => ({ proposal: renderProposal(await proposals.accept(user.address, params.id, body.signature)) }),
    }),
    defineRoute({
      method: "post", path: "/api/proposals/:id/reject", tag: "proposals", auth: true, params: idParams,
      summary: "Turn a pending proposal down",
      errors: [...errors, "CONFLICT"],
      handler: async ({ params, user }) => ({ proposal: renderProposal(await proposals.reject(user.address, params.id)) }),
    }),
  ];
}
