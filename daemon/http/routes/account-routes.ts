// SPEC 4.4: the signed-in user's account.
import { z } from "zod";
import { defineRoute } from "../route.js";

export function accountRoutes() {
  return [
    defineRoute({
      method: "get",
      path: "/api/account",
      tag: "account",
      summary: "The signed-in user's account: address and session expiry",
      auth: true,
      response: z.object({
        address: z.string(),
        session: z.object({ expiresAt: z.number().int().meta({ description: "Unix seconds" }) }),
      }),
      errors: ["UNAUTHENTICATED"],
      handler: ({ user }) => ({
        address: user.address,
        session: { expiresAt: Math.floor(user.sessionExpiresAt / 1000) },
      }),
    }),
  ];
}
