// The answers of the embedded sim's controls (sim-routes.ts).
import { z } from "zod";

/** POST /api/sim/faucet: the credit and the account's USDC after it (decimal text). */
export const simFaucet = z.object({
  user: z.string(), amount: z.string(), usdc: z.string(),
  leftToday: z.string().meta({ description: "USDC this account may still take from the faucet today (UTC), decimal text" }),
});
export type SimFaucet = z.infer<typeof simFaucet>;

/** POST /api/sim/price: the resting orders the move filled and the accounts it liquidated. */
export const simPrice = z.object({ filledOids: z.array(z.number().int()), liquidated: z.array(z.string()) });
export type SimPrice = z.infer<typeof simPrice>;
