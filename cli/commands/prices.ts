// tradevault prices [symbol]: the exchange's mid prices (GET /api/prices; on the sim, its marks as
// they move), every market or the one named, in the exchange's order.
import { Command } from "commander";
import type { Prices } from "../../daemon/http/responses.js";
import { contextFor } from "../context.js";
import { usageError } from "../errors.js";
import { printResult, table, type Io } from "../output.js";

/** Listed in a refusal up to this many; past it, the command without a symbol lists them. */
const NAMED_MAX = 12;

/** The market `symbol` names: as the exchange spells it, else the one that matches in any case (kPEPE). */
export function marketOf(prices: Record<string, string>, symbol: string): string {
  if (symbol in prices) return symbol;
  const matches = Object.keys(prices).filter((s) => s.toUpperCase() === symbol.toUpperCase());
  if (matches.length === 1) return matches[0]!;
  const known = Object.keys(prices);
  throw usageError(`the exchange lists no market "${symbol}"`,
    known.length <= NAMED_MAX ? `its markets: ${known.join(", ")}` : `${known.length} markets: see npx tradevault prices`);
}

export function pricesCommand(io: Io): Command {
  return new Command("prices")
    .description("mid prices of every market the exchange lists, or of one (on the sim: its marks)")
    .argument("[symbol]", "asset, e.g. BTC")
    .action(async (symbol: string | undefined, _o, c: Command) => {
      const ctx = contextFor(c, io);
      const { prices } = await ctx.authedApi().request<Prices>("GET", "/api/prices");
      const market = symbol === undefined ? undefined : marketOf(prices, symbol);
      const shown: Prices = { prices: market === undefined ? prices : { [market]: prices[market]! } };
      printResult(io, ctx.json, shown, () => table(["SYMBOL", "MID PRICE"], Object.entries(shown.prices)));
    });
}
