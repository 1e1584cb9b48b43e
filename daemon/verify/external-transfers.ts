// Which ledger records move money into or out of the account from outside the vault's trading, and by
// how much, written from Hyperliquid's ledger delta types (docs/design.md lists them). Everything
// else in the non-funding ledger (liquidation summaries, fees the fills already carry) moves none.
import { parseDecimal } from "../lib/decimal.js";

/** Signed micro-USDC a ledger record moves into the account (negative: out). */
export function externalDelta(delta: { type: string } & Record<string, unknown>, account: string): bigint {
  const me = account.toLowerCase();
  // Rounded toward the vault's disadvantage (up), as the reading's netting is, should a venue figure carry more than 6 decimals.
  const signed = (key: string, into: boolean) => {
    const text = typeof delta[key] === "string" ? (delta[key] as string).replace(/^-/, "") : "0";
    return parseDecimal(into ? text : `-${text}`, 6, "ceil");
  };
  const incoming = String(delta.destination ?? "").toLowerCase() === me;
  switch (delta.type) {
    case "deposit":
      return signed("usdc", true);
    case "withdraw":
      return signed("usdc", false);
    case "internalTransfer":
    case "subAccountTransfer":
      return signed("usdc", incoming);
    case "send":
      return signed("amount", incoming);
    case "accountClassTransfer":
      return signed("usdc", delta.toPerp === true);
    default:
      return 0n;
  }
}
