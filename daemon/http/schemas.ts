// Request field schemas shared by routes. Addresses are accepted in any case and come out EIP-55.
import { z } from "zod";
import type { NextStep } from "../errors.js";
import { numberLiteralToDecimal } from "../lib/decimal.js";
import { SIGNATURE_HEX, canonicalSignature, signatureProblem } from "../lib/ecdsa.js";
import { checksumAddress } from "../lib/eip55.js";
import { usdcToBaseUnits } from "../vaults/units.js";
import { JsonNumber } from "./json-number.js";

export const address = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/, "must be a 0x-prefixed 20-byte hex address")
  .transform(checksumAddress)
  .meta({ example: "0x14791697260E4c9A71f18484C9f997B308e59325" });

/**
 * 0x and 65 bytes of hex: the shape of a signature, nothing more (sign-in checks the rest itself: 401).
 * Aborting: zod runs a string's later checks after a failed one, and the ECDSA check takes this shape.
 */
export const signatureHex = z.string().regex(SIGNATURE_HEX, { message: "must be a 0x-prefixed 65-byte hex signature", abort: true });

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

// ---------------------------------------------------------------- numbers

// A body's numbers arrive as JsonNumber, their text as sent (json-number.ts); the field decides what
// the text must be. Nothing is rounded on the way: a field that takes a decimal gets the exact decimal
// text and checks it as it checks the same text sent as a string; a field that takes an integer gets
// a safe integer or a 400. Both document the number the client sends (the inner schema).

/** A body number as its exact decimal text ("1e-7" is "0.0000001"); any other value as it came. */
function numberAsText(value: unknown, ctx: z.RefinementCtx): unknown {
  if (!(value instanceof JsonNumber)) return value;
  try {
    return numberLiteralToDecimal(value.text);
  } catch {
    ctx.addIssue({ code: "custom", message: "is out of range" });
    return z.NEVER;
  }
}

/** Decimal text of a safe integer to its number, or why it is not one. */
function safeInteger(decimal: string): number | string {
  if (!/^-?\d+$/.test(decimal)) return "must be a whole number";
  const n = BigInt(decimal);
  const max = BigInt(Number.MAX_SAFE_INTEGER);
  if (n > max || n < -max) return `must be a whole number within ±${max}`;
  return Number(n);
}

/**
 * Where a body field takes a decimal (`inner` reads a JSON number or a decimal string): a number
 * reaches `inner` as its exact decimal text. Outermost, so the document shows `inner`'s input.
 */
export const decimalField = <T extends z.ZodType>(inner: T) => z.preprocess(numberAsText, inner);

/** A decimal field's input as documented: a JSON number or a decimal string (from a body, always the string). */
export const numberOrString = () => z.union([z.number(), z.string()]);

/** Where a body field takes an integer (`inner` adds the bounds): a JSON number that is a safe integer. */
export const integerField = <T extends z.ZodType<number | undefined>>(inner: T) =>
  z.preprocess((value, ctx) => {
    if (!(value instanceof JsonNumber)) return value; // a string or anything else: `inner` refuses it
    const text = numberAsText(value, ctx);
    const n = typeof text === "string" ? safeInteger(text) : undefined;
    if (typeof n === "number") return n;
    if (n !== undefined) ctx.addIssue({ code: "custom", message: n });
    return z.NEVER;
  }, inner);

/** Where a query or path parameter takes an integer: digits only, a safe integer. */
export const integerParam = <T extends z.ZodType<number | undefined>>(inner: T) =>
  z.preprocess((value, ctx) => {
    if (typeof value !== "string") return value;
    const n = /^\d+$/.test(value) ? safeInteger(value) : "must be a whole number (digits only)";
    if (typeof n === "number") return n;
    ctx.addIssue({ code: "custom", message: n });
    return z.NEVER;
  }, inner);

/** The largest amount any ERC-20 or typed-data field can hold. */
const UINT256_MAX = 2n ** 256n - 1n;

/** A positive USDC amount (a JSON number or a decimal string, at most 6 decimals) as base units. */
export const usdcAmount = decimalField(numberOrString().transform((v, ctx) => {
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
})).meta({ description: "USDC, a JSON number or a decimal string with at most 6 decimals" });

/** limit 1..1000 (default 100), offset >= 0 (default 0). */
export const pagination = z
  .object({
    limit: integerParam(z.number().int().min(1).max(1000).default(100)),
    offset: integerParam(z.number().int().min(0).default(0)),
  })
  .strict();

export const signInNonce = z.string().regex(/^[A-Za-z0-9]{8,64}$/, "must be the alphanumeric nonce of a challenge");

/** Success envelope for documentation: { ok: true, data }. */
export const envelope = (data: z.ZodType) => z.object({ ok: z.literal(true), data });

const fieldErrors = z.array(z.object({ field: z.string(), message: z.string() }))
  .meta({ description: "INVALID_INPUT: one entry per field, e.g. body.size" });
const vaultStep = <A extends string>(action: A) => z.object({ action: z.literal(action), vault: z.string() });
/** errors.ts NextStep, as `details.next` lists it. */
export const nextStep: z.ZodType<NextStep> = z.discriminatedUnion("action", [
  vaultStep("closeVault"), vaultStep("unpauseVault"),
  z.object({ action: z.literal("fundVault"), vault: z.string(), amount: z.string().meta({ description: "USDC, decimal text" }) }),
  z.object({ action: z.literal("approveAgent") }), z.object({ action: z.literal("signIn") }),
  z.object({ action: z.literal("takeEventTicket") }), z.object({ action: z.literal("simFaucet") }),
]).meta({ description: "one thing the caller can do next; the message says it in the words of the X-Tradevault-Client header" });
const errorObject = z.object({ next: z.array(nextStep).optional().meta({ description: "the refusal's next steps, likeliest first" }) })
  .catchall(z.unknown());
const errorDetails = z.union([fieldErrors, errorObject])
  .meta({ description: "INVALID_INPUT: per-field errors; otherwise an object (e.g. cloid of an order in doubt, reason the exchange gave, next steps)" });

/** Failure envelope: { ok: false, error: { code, message, details? } }, `code` one of `codes` when given. */
export const errorEnvelope = (codes?: readonly [string, ...string[]]) =>
  z.object({
    ok: z.literal(false),
    error: z.object({ code: codes ? z.enum(codes) : z.string(), message: z.string(), details: errorDetails.optional() }),
  });

export const errorBody = errorEnvelope();
