// What a closed vault still owes a party, by the contract's rule (TradingVault._withdrawable): the
// trader its unpaid share, capped by the escrow; the investor what the escrow holds beyond the
// trader's unpaid share. Worked out in USDC base units (bigint) from the detail's settlement, so the
// page offers Withdraw only to a party with something left to take. Exact: never through a float.
import type { VaultDetail } from "../../daemon/http/responses.js";

const DECIMALS = 6;

/** USDC as decimal text (or a JSON number the API rendered from it) in base units. */
function baseUnits(v: string | number | undefined): bigint {
  const text = typeof v === "number" ? v.toFixed(DECIMALS) : (v ?? "0");
  const negative = text.startsWith("-");
  const [int = "0", frac = ""] = text.replace("-", "").split(".");
  const units = BigInt(int || "0") * 10n ** BigInt(DECIMALS) + BigInt((frac + "0".repeat(DECIMALS)).slice(0, DECIMALS) || "0");
  return negative ? -units : units;
}

const text = (units: bigint) => {
  const s = units.toString().padStart(DECIMALS + 1, "0");
  return `${s.slice(0, -DECIMALS)}.${s.slice(-DECIMALS)}`.replace(/\.?0+$/, "");
};

/** What `role` may withdraw now, as USDC text; null when nothing (not closed, not a party, all paid). */
export function withdrawable(v: VaultDetail, role: string): string | null {
  const s = v.settlement;
  if (!v.closed || (role !== "investor" && role !== "trader")) return null;
  const paidTrader = baseUnits(s.paidTrader);
  const escrow = baseUnits(s.funded) - paidTrader - baseUnits(s.paidInvestor);
  const traderUnpaid = baseUnits(s.traderShare) - paidTrader;
  const owed = role === "trader" ? (traderUnpaid < escrow ? traderUnpaid : escrow) : escrow - traderUnpaid;
  return owed > 0n ? text(owed) : null;
}
