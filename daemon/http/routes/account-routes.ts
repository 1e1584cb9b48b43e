// SPEC 4.4: the signed-in user's account: address, session, the exchange account summary and the
// agent's status. Balances are decimal strings (exact), like every money amount the API returns.
import { z } from "zod";
import { isAppError } from "../../errors.js";
import type { ExchangeAdapter } from "../../exchange/types.js";
import type { AgentService } from "../../trading/agent-service.js";
import { defineRoute } from "../route.js";

const seconds = (ms: number | null) => (ms === null ? null : Math.floor(ms / 1000));

export function accountRoutes(deps: { exchange: ExchangeAdapter; agents: AgentService }) {
  const { exchange, agents } = deps;
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
        const base = { address: user.address, session: { expiresAt: seconds(user.sessionExpiresAt)! } };
        try {
          const [state, agent] = await Promise.all([exchange.accountState(user.address), agents.status(user.address)]);
          return {
            ...base,
            exchange: {
              kind: exchange.kind, available: true, accountValue: state.accountValue, withdrawable: state.withdrawable,
              marginUsed: state.totalMarginUsed, openPositions: state.positions.length,
            },
            agent: { address: agent.agentAddress, approved: agent.approved, validUntil: seconds(agent.validUntil) },
          };
        } catch (err) {
          // The account page still answers when the exchange is down; it says so instead.
          if (!isAppError(err) || err.code !== "EXCHANGE_UNAVAILABLE") throw err;
          return { ...base, exchange: { kind: exchange.kind, available: false, error: err.message }, agent: null };
        }
      },
    }),
  ];
}
