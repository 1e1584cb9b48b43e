// The perpetual markets the sim lists, with Hyperliquid's size decimals and leverage limits.
// Asset index = position in the list, exactly like Hyperliquid's `meta.universe`.
import type { Market, MarketSpec } from "./types.js";

export const DEFAULT_MARKETS: readonly MarketSpec[] = [
  { name: "BTC", szDecimals: 5, maxLeverage: 40, startPx: "60000" },
  { name: "ETH", szDecimals: 4, maxLeverage: 25, startPx: "3000" },
  { name: "SOL", szDecimals: 2, maxLeverage: 20, startPx: "150" },
];

export class MarketList {
  readonly all: readonly Market[];
  private readonly byName: Map<string, Market>;

  constructor(specs: readonly MarketSpec[]) {
    if (specs.length === 0) throw new Error("the sim needs at least one market");
    this.all = specs.map((s, asset) => ({ ...s, asset }));
    this.byName = new Map(this.all.map((m) => [m.name, m]));
    if (this.byName.size !== this.all.length) throw new Error("duplicate market names");
  }

  byAsset(asset: number): Market | undefined {
    return this.all[asset];
  }

  byCoin(coin: string): Market | undefined {
    return this.byName.get(coin);
  }

  /** Hyperliquid's `meta` response: universe plus one single-tier margin table per leverage. */
  meta(): unknown {
    const leverages = [...new Set(this.all.map((m) => m.maxLeverage))];
    return {
      universe: this.all.map((m) => ({
        name: m.name,
        szDecimals: m.szDecimals,
        maxLeverage: m.maxLeverage,
        marginTableId: m.maxLeverage,
      })),
      marginTables: leverages.map((lev) => [
        lev,
        { description: "", marginTiers: [{ lowerBound: "0.0", maxLeverage: lev }] },
      ]),
      collateralToken: 0,
    };
  }
}
