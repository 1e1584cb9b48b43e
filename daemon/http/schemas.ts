// Request field schemas shared by routes. Addresses are accepted in any case and come out EIP-55.
import { getAddress } from "ethers";
import { z } from "zod";

export const address = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/, "must be a 0x-prefixed 20-byte hex address")
  .transform((a) => getAddress(a.toLowerCase()))
  .meta({ example: "0x14791697260E4c9A71f18484C9f997B308e59325" });

export const signature = z
  .string()
  .regex(/^0x[0-9a-fA-F]{130}$/, "must be a 0x-prefixed 65-byte hex signature");

export const signInNonce = z.string().regex(/^[A-Za-z0-9]{8,64}$/, "must be the alphanumeric nonce of a challenge");

/** Success envelope for documentation: { ok: true, data }. */
export const envelope = (data: z.ZodType) => z.object({ ok: z.literal(true), data });

export const errorBody = z.object({
  ok: z.literal(false),
  error: z.object({
    code: z.string(),
    message: z.string(),
    details: z.unknown().optional(),
  }),
});
