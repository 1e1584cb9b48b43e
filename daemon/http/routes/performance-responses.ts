// The answer of GET /api/vaults/:address/performance: money as USDC decimal text, percentages as
// JSON numbers (two decimals at most), times as Unix seconds.
import { z } from "zod";
import { unixSeconds, usdcText } from "../response-parts.js";

const percent = z.number().meta({ description: "percent, two decimals at most, rounded toward zero" });

export const vaultPerformance = z.object({
  performance: z.object({
    returnPct: percent.meta({ description: "(balance now - initial balance) / initial balance, in percent; balance now is the final balance of a closed vault" }),
    annualizedReturnPct: percent.nullable().meta({ description: "returnPct x 365 / days elapsed since the vault was created (simple, no compounding); null before one whole day" }),
    maxDrawdownPct: percent.meta({ description: "deepest fall of a reading below the running peak (which starts at the initial balance), in percent of that peak" }),
    maxDrawdownAt: unixSeconds.nullable().meta({ description: "when the deepest reading was observed; null while no reading was below the peak" }),
    daily: z.array(z.object({
      day: z.string().meta({ description: "UTC day, YYYY-MM-DD (the contract's daily limit's day)" }),
      closingBalance: usdcText.meta({ description: "the day's last reading" }),
      pnl: usdcText.meta({ description: "closingBalance minus the previous listed day's (the first day: minus the initial balance)" }),
    })).meta({ description: "one entry per UTC day with at least one reading, oldest first" }),
    feesPaid: usdcText.meta({ description: "sum of the fees of the vault's recorded fills (negative: rebates earned)" }),
    fundingPaid: usdcText.nullable().meta({ description: "funding the exchange account paid since the vault was created (negative: received), read from the exchange; null when it cannot be read" }),
    ifClosedNow: z.object({
      profit: usdcText.meta({ description: "balance now minus the initial balance (signed)" }),
      traderShare: usdcText.meta({ description: "the trader's share of a profit, rounded down; 0 on a loss" }),
      investorShare: usdcText.meta({ description: "profit minus traderShare" }),
      asOf: unixSeconds.nullable().meta({
        description: "when the reading these figures stand on was observed (the vault's last reading, up to one oracle interval old); null before its first reading, when the balance is the initial balance",
      }),
    }).nullable().meta({
      description: "what closing at the vault's last reading would settle, by the contract's rule; null once the vault is closed (its settlement is the vault detail's `settlement`)",
    }),
  }),
});
export type VaultPerformanceResponse = z.infer<typeof vaultPerformance>;
