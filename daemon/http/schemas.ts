// Request field schemas shared by routes. Addresses are accepted in any case and come out EIP-55.
import { getAddress } from "ethers";
import { z } from "zod";
import { canonicalSignature, signatureProblem } from "../lib/ecdsa.js";
import { usdcToBaseUnits } from "../vaults/units.js";

export const address = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/, "must be a 0x-prefixed 20-byte hex address")
  .transform((a) => getAddress(a.toLowerCase()))
  .meta({ example: "0x14791697260E4c9A71f18484C9f997B308e59325" });

/** 0x and 65 bytes of hex: the shape of a signature, nothing more (sign-in checks the rest itself: 401). */
export const signatureHex = z.string().regex(/^0x[0-9a-fA-F]{130}$/, "must be a 0x-prefixed 65-byte hex signature");

/**
 * A 65-byte signature that can be an ECDSA signature (r and s in range, low s, a point on the curve,
 * v 27/28 or 0/1), handed on with v as 27 or 28. Every route that relays or verifies one takes this,
 * so a signature no verifier accepts is 400 here, never a throw or a revert further down.
 */
export const signature = signatureHex
  .superRefine((sig, ctx) => {
    const problem = signatureProblem(sig);
    if (problem) ctx.addIssue({ code: "custom", message: `is not a valid ECDSA signature: it ${problem}` });
  })
  .transform(canonicalSignature);

/** The largest amount any ERC-20 or typed-data field can hold. */
const UINT256_MAX = 2n ** 256n - 1n;

/** A positive USDC amount (a JSON number or a decimal string, at most 6 decimals) as base units. */
export const usdcAmount = z.union([z.number(), z.string()]).transform((v, ctx) => {
  let units: bigint | undefined;
  try {
    units = usdcToBaseUnits(v);
  } catch {
    /* reported below */
  }
  if (units === undefined || units <= 0n) {
    ctx.addIssue({ code: "custom", message: "must be a positive USDC amount with at most 6 decimals" });
    return z.NEVER;
  }
  if (units > UINT256_MAX) {
    ctx.addIssue({ code: "custom", message: "is larger than any on-chain amount" });
    return z.NEVER;
  }
  return units;
}).meta({ description: "USDC, a JSON number or a decimal string with at most 6 decimals" });

/** limit 1..1000 (default 100), offset >= 0 (default 0). */
export const pagination = z
  .object({
    limit: z.coerce.number().int().min(1).max(1000).default(100),
    offset: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(0),
  })
  .strict();

export const signInNonce = z.string().regex(/^[A-Za-z0-9]{8,64}$/, "must be the alphanumeric nonce of a challenge");

/** Success envelope for documentation: { ok: true, data }. */
export const envelope = (data: z.ZodType) => z.object({ ok: z.literal(true), data });

const fieldErrors = z.array(z.object({ field: z.string(), message: z.string() }))
  .meta({ description: "INVALID_INPUT: one entry per field, e.g. body.size" });
const errorDetails = z.union([fieldErrors, z.record(z.string(), z.unknown())])
  .meta({ description: "INVALID_INPUT: per-field errors; otherwise an object (e.g. cloid of an order in doubt, reason the exchange gave)" });

/** Failure envelope: { ok: false, error: { code, message, details? } }, `code` one of `codes` when given. */
export const errorEnvelope = (codes?: readonly [string, ...string[]]) =>
  z.object({
    ok: z.literal(false),
    error: z.object({ code: codes ? z.enum(codes) : z.string(), message: z.string(), details: errorDetails.optional() }),
  });

export const errorBody = errorEnvelope();
