// SPEC 4.4: the signed-in user's account: address, session, the exchange account summary and the
// agent's status. Balances are decimal strings (exact), like every money amount the API returns.
import { z } from "zod";
import type { AccountViews } from "../../trading/account-views.js";
import { seconds } from "../render.js";
import { defineRoute } from "../route.js";

export function accountRoutes(deps: { views: AccountViews }) {
  const { views } = deps;
  return [
    defineRoute({
      method: "get",
      path: "/api/account",
      tag: "account",
      summary: "Your account: address, session expiry, exchange balances and agent status",
      auth: true,
      response: z.object({
        address: z.string(),
        session: z.object({ expiresAt: z.number().int().meta({ description: "Unix seconds" }) }),
        exchange: z.object({
          kind: z.string(),
          available: z.boolean(),
          accountValue: z.string().optional(),
          withdrawable: z.string().optional(),
          marginUsed: z.string().optional(),
          openPositions: z.number().int().optional(),
          error: z.string().optional(),
        }),
        agent: z.object({ address: z.string(), approved: z.boolean(), validUntil: z.number().int().nullable() }).nullable(),
      }),
      errors: ["UNAUTHENTICATED"],
      handler: async ({ user }) => {
        const s = await views.summary(user.address);
        return {
          address: user.address,
          session: { expiresAt: seconds(user.sessionExpiresAt)! },
          exchange: s.exchange,
          agent: s.agent && { address: s.agent.address, approved: s.agent.approved, validUntil: seconds(s.agent.validUntilMs) },
        };
      },
    }),
  ];
}
