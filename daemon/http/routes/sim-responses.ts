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

/** POST /api/sim/adl: what the deleveraging closed, at what price, and the position left (decimal text). */
export const simAdl = z.object({
  user: z.string(), symbol: z.string(),
  side: z.enum(["B", "A"]).meta({ description: "the fill's side: B closed a short, A a long" }),
  size: z.string(), price: z.string().meta({ description: "the mark it closed at" }), closedPnl: z.string(),
  tid: z.number().int().meta({ description: "the fill's trade id" }),
  position: z.string().meta({ description: "the signed position left in the coin (0 when none)" }),
});
export type SimAdl = z.infer<typeof simAdl>;
