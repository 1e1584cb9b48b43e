// The seven terms of a vault proposal: each checked the same way whether it came as a flag (a bad
// one is exit 2) or as an answer on a terminal (a bad one is asked again).
import type { Check } from "./prompt.js";
// Plain data with no imports: the one table of breach policies, shared with the daemon and the dashboard.
import { BREACH_POLICY_TABLE, DEFAULT_BREACH_POLICY } from "../daemon/vaults/breach-policies.js";

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const DECIMAL = /^\d+(\.\d+)?$/;

export const isAddress: Check = (v) => ADDRESS.test(v.trim()) || "must be an address (0x and 40 hex digits)";
export const isAmount: Check = (v) =>
  (/^\d+(\.\d{1,6})?$/.test(v.trim()) && /[1-9]/.test(v)) || "must be a USDC amount above 0 with at most 6 decimals";
export const isLimit: Check = (v) =>
  (/^\d+(\.\d{1,2})?$/.test(v.trim()) && percentBps(v) > 0 && percentBps(v) <= 10_000) || "must be a percentage above 0 and at most 100, with at most 2 decimals";
export const isShare: Check = (v) =>
  (/^\d+(\.\d{1,2})?$/.test(v.trim()) && percentBps(v) <= 10_000) || "must be a percentage from 0 to 100, with at most 2 decimals";
export const isDays: Check = (v) => (DECIMAL.test(v.trim()) && Number(v) > 0) || "must be a number of days above 0";

/** "12.5" (percent) -> 1250 basis points, exactly. */
export function percentBps(v: string): number {
  const [int = "0", frac = ""] = v.trim().split(".");
  return Number(int) * 100 + Number(frac.padEnd(2, "0").slice(0, 2));
}

/** The breach policies (a signed term; optional, "pause" when not given), as `show` explains them. */
export const BREACH_POLICY_TEXT: Record<string, string> = Object.fromEntries(
  BREACH_POLICY_TABLE.map((p) => [p.name, `${p.name} (${p.summary})`]),
);

/** For --breach-policy's help: "pause (default), reduce-only or flatten". */
export const BREACH_POLICY_CHOICES = BREACH_POLICY_TABLE
  .map((p, i, all) => `${i === 0 ? "" : i === all.length - 1 ? " or " : ", "}${p.name}${p.name === DEFAULT_BREACH_POLICY ? " (default)" : ""}`)
  .join("");

export interface Term {
  key: "investor" | "trader" | "balance" | "maxDrawdown" | "dailyDrawdown" | "days" | "traderShare";
  flag: string;
  question: string;
  check: Check;
}

export const TERMS: readonly Term[] = [
  { key: "investor", flag: "--investor", question: "Investor address", check: isAddress },
  { key: "trader", flag: "--trader", question: "Trader address", check: isAddress },
  { key: "balance", flag: "--balance", question: "Initial balance (USDC)", check: isAmount },
  { key: "maxDrawdown", flag: "--max-drawdown", question: "Max drawdown (%)", check: isLimit },
  { key: "dailyDrawdown", flag: "--daily-drawdown", question: "Daily drawdown (%)", check: isLimit },
  { key: "days", flag: "--days", question: "Deal length (days)", check: isDays },
  { key: "traderShare", flag: "--trader-share", question: "Trader's profit share (%)", check: isShare },
];
