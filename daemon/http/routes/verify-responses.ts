// The answers of GET /api/vaults/:address/verify and /verification: each money invariant with holds,
// broken (and its first break, figures on both sides) or not-checked (and why).
import { z } from "zod";
import { unixSeconds } from "../response-parts.js";

const invariant = z.object({
  invariant: z.enum(["readings-netted", "flat-points", "breaches", "settlement", "orders"]).meta({ description: "which invariant (docs/design.md, Money invariants)" }),
  status: z.enum(["holds", "broken", "not-checked"]),
  checked: z.number().int().meta({ description: "how many readings, flat points, payouts or order rows it went through" }),
  summary: z.string().meta({ description: "one line: what was checked, or why not" }),
  break: z.object({
    what: z.string().meta({ description: "the reading, fill, event or order that breaks it" }),
    expected: z.string().meta({ description: "what the records say it should be (USDC as decimal text, or a status)" }),
    actual: z.string().meta({ description: "what it is" }),
  }).optional().meta({ description: "the first break, when broken" }),
});

export const verification = z.object({
  vault: z.string().meta({ description: "the vault's address, EIP-55" }),
  mode: z.enum(["daemon", "public"]).meta({ description: "daemon: every invariant, with the daemon's records; public: only what the chain and the exchange show" }),
  checkedAt: unixSeconds,
  outcome: z.enum(["holds", "broken", "unreadable"]).meta({ description: "broken when any invariant is; unreadable when the records could not be read (reason says why)" }),
  reason: z.string().optional(),
  note: z.string().optional().meta({ description: "where the records came from when not all from the chain's node (the daemon's index of blocks a pruning node dropped)" }),
  invariants: z.array(invariant),
});

export const vaultVerification = z.object({ verification });
export const lastVaultVerification = z.object({ verification: verification.nullable().meta({ description: "null until the vault is first verified" }) });
export type VerificationResponse = z.infer<typeof verification>;
