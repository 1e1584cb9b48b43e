// GET /api/vaults/:address/performance: the vault's figures, for its parties only (others: 404).
import { z } from "zod";
import type { VaultPerformanceService } from "../../vaults/vault-performance.js";
import { num } from "../render.js";
import { defineRoute } from "../route.js";
import { address } from "../schemas.js";
import { vaultPerformance } from "./performance-responses.js";

export function performanceRoutes(deps: { performance: VaultPerformanceService }) {
  return [
    defineRoute({
      method: "get", path: "/api/vaults/:address/performance", tag: "vaults", auth: true, params: z.object({ address }),
      summary: "The vault's return, annualized return, maximum drawdown, daily PnL, fees, funding and what closing now would settle",
      response: vaultPerformance,
      errors: ["UNAUTHENTICATED", "NOT_FOUND", "INVALID_INPUT", "RATE_LIMITED"],
      handler: async ({ params, user }) => {
        const p = await deps.performance.performance(user.address, params.address);
        return {
          performance: {
            ...p,
            returnPct: num(p.returnPct),
            annualizedReturnPct: p.annualizedReturnPct === null ? null : num(p.annualizedReturnPct),
            maxDrawdownPct: num(p.maxDrawdownPct),
          },
        };
      },
    }),
  ];
}
