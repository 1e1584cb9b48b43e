// Proposals (SPEC 4.16 and the vaults issue): create, list, show, accept with an EIP-712
// signature, reject. Terms use SPEC's names and units: percentages and USDC decimal strings.
import { z } from "zod";
import { percentToBps } from "../../vaults/units.js";
import { rowToProposal, type ProposalService } from "../../vaults/proposal-service.js";
import { BREACH_POLICIES, BREACH_POLICY_HELP, breachPolicyCode, DEFAULT_BREACH_POLICY } from "../../vaults/breach-policies.js";
import * as R from "./proposal-responses.js";
import { defineRoute } from "../route.js";
import { address, decimalField, integerField, integerParam, numberOrString, pagination, signature, usdcAmount as usdc } from "../schemas.js";

const converted = <T>(fn: (v: unknown) => T, message: string) =>
  decimalField(numberOrString().transform((v, ctx) => {
    try {
      return fn(v);
    } catch {
      ctx.addIssue({ code: "custom", message });
      return z.NEVER;
    }
  }));

const limitPercent = converted(percentToBps, "must be a percentage with at most 2 decimals")
  .refine((bps) => bps > 0 && bps <= 10_000, "must be more than 0 and at most 100");
const sharePercent = converted(percentToBps, "must be a percentage with at most 2 decimals")
  .refine((bps) => bps >= 0 && bps <= 10_000, "must be between 0 and 100");
const unixSeconds = integerField(z.number().int().positive().max(2 ** 40)).meta({ description: "Unix seconds" });

const idParams = z.object({ id: integerParam(z.number().int().positive()) });

/** A proposal as the API answers it: the chain's generic EIP-712 document is checked to be VaultTerms, not asserted. */
const renderProposal = (row: Parameters<typeof rowToProposal>[0]) => {
  const p = rowToProposal(row);
  return { ...p, typedData: R.vaultTermsTypedData.parse(p.typedData) };
};

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
        breachPolicy: z.enum(BREACH_POLICIES).default(DEFAULT_BREACH_POLICY).describe(`What a breach does. ${BREACH_POLICY_HELP}`),
      }).strict(),
      response: R.proposalResponse,
      errors: [...errors],
      handler: async ({ body, user }) => {
        const row = await proposals.create(user.address, {
          investor: body.investor, trader: body.trader, exchangeAccount: body.exchangeAccount, initialBalance: body.initialBalance,
          maxDrawdownBps: body.maxDrawdown, dailyDrawdownBps: body.dailyDrawdown, dealDeadline: body.dealDeadline,
          traderShareBps: body.profitShare.trader, breachPolicy: breachPolicyCode(body.breachPolicy), validUntil: body.validUntil,
        });
        return { proposal: renderProposal(row), warnings: await proposals.warnings(row, user.address) };
      },
    }),
    defineRoute({
      method: "get", path: "/api/proposals", tag: "proposals", auth: true, query: pagination,
      summary: "Proposals where you are investor or trader, newest first",
      response: R.proposalList,
      errors: [...errors],
      handler: async ({ query, user }) => {
        const { rows, total } = await proposals.list(user.address, query.limit, query.offset);
        return { proposals: rows.map(renderProposal), total, hasMore: query.offset + rows.length < total };
      },
    }),
    defineRoute({
      method: "get", path: "/api/proposals/:id", tag: "proposals", auth: true, params: idParams,
      summary: "One proposal with its typed data and who has signed",
      response: R.proposalResponse,
      errors: [...errors],
      handler: async ({ params, user }) => {
        const row = await proposals.load(user.address, params.id);
        return { proposal: renderProposal(row), warnings: await proposals.warnings(row, user.address) };
      },
    }),
    defineRoute({
      method: "post", path: "/api/proposals/:id/accept", tag: "proposals", auth: true, params: idParams,
      summary: "Sign the terms (EIP-712 signature of typedData); when both parties have, the vault is deployed",
      body: z.object({ signature }).strict(),
      response: R.proposalAction,
      errors: [...errors, "CONFLICT"],
      handler: async ({ params, body, user }) => ({ proposal: renderProposal(await proposals.accept(user.address, params.id, body.signature)) }),
    }),
    defineRoute({
      method: "post", path: "/api/proposals/:id/reject", tag: "proposals", auth: true, params: idParams,
      summary: "Turn a pending proposal down",
      response: R.proposalAction,
      errors: [...errors, "CONFLICT"],
      handler: async ({ params, user }) => ({ proposal: renderProposal(await proposals.reject(user.address, params.id)) }),
    }),
  ];
}
