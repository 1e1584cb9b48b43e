// SPEC 4.4: the signed-in user's account: address, session, the exchange account summary and the
// agent's status. Balances are decimal strings (exact), like every money amount the API returns.
import type { AccountViews } from "../../trading/account-views.js";
import { seconds } from "../render.js";
import * as R from "./account-responses.js";
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
      response: R.account,
      errors: ["UNAUTHENTICATED", "RATE_LIMITED"],
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
