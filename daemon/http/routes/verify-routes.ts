// GET /api/vaults/:address/verify runs the vault's money invariants now; /verification answers the
// last run. Parties only (others: 404).
import { z } from "zod";
import type { VaultVerificationService } from "../../vaults/vault-verification.js";
import { defineRoute } from "../route.js";
import { address } from "../schemas.js";
import { lastVaultVerification, vaultVerification } from "./verify-responses.js";

export function verifyRoutes(deps: { verification: VaultVerificationService }) {
  return [
    defineRoute({
      method: "get", path: "/api/vaults/:address/verify", tag: "vaults", auth: true, params: z.object({ address }),
      summary: "Checks the vault's money invariants now against the chain's events and the exchange's fills, funding and ledger",
      response: vaultVerification,
      errors: ["UNAUTHENTICATED", "NOT_FOUND", "INVALID_INPUT", "RATE_LIMITED"],
      handler: async ({ params, user }) => ({ verification: await deps.verification.verify(user.address, params.address) }),
    }),
    defineRoute({
      method: "get", path: "/api/vaults/:address/verification", tag: "vaults", auth: true, params: z.object({ address }),
      summary: "The vault's last verification (null until it is first verified)",
      response: lastVaultVerification,
      errors: ["UNAUTHENTICATED", "NOT_FOUND", "INVALID_INPUT"],
      handler: async ({ params, user }) => ({ verification: await deps.verification.last(user.address, params.address) }),
    }),
  ];
}
