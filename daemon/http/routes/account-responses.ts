// The answer of GET /api/account (account-routes.ts).
import { z } from "zod";
import { unixSeconds, usdcText } from "../response-parts.js";

export const account = z.object({
  address: z.string(),
  session: z.object({ expiresAt: unixSeconds }),
  exchange: z.object({
    kind: z.string(),
    available: z.boolean(),
    accountValue: usdcText.optional(),
    withdrawable: usdcText.optional(),
    marginUsed: usdcText.optional(),
    openPositions: z.number().int().optional(),
    error: z.string().optional(),
  }),
  agent: z.object({ address: z.string(), approved: z.boolean(), validUntil: unixSeconds.nullable() }).nullable(),
});
export type Account = z.infer<typeof account>;
