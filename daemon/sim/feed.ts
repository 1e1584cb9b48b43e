// Price feeds that move the marks: a seeded random walk (deterministic, resumable after a restart
// because its generator state is stored), a replay of a CSV file, or none ("static": marks move only
// through setPrice). The walk's steps are integers (parts per million), so no float touches a price.
import { readFileSync } from "node:fs";
import { isDecimalString, roundPrice } from "../lib/decimal.js";
import type { MarketList } from "./markets.js";
import { F } from "./num.js";
import type { SimRepo } from "./store/repo.js";

export type PriceFeedConfig =
  | { kind: "random-walk"; seed?: number; intervalMs?: number; /** max step per tick, in bps */ volatilityBps?: number }
  | { kind: "csv"; path: string; intervalMs?: number; loop?: boolean }
  | { kind: "static" };

export interface PriceFeed {
  /** Timer period; undefined when the feed only moves on demand. */
  intervalMs?: number;
  /** Marks for a fresh database, when the feed dictates them (first CSV row). */
  initial(): Map<string, bigint> | undefined;
  /** The next marks (coin → price). Writes the feed's own state; call inside a transaction. */
  next(current: ReadonlyMap<string, bigint>): Map<string, bigint>;
}

/** mulberry32: small, seedable, and its whole state is one 32-bit integer we can persist. */
function mulberry32(state: number): [value: number, state: number] {
  const a = (state + 0x6d2b79f5) | 0;
  let t = Math.imul(a ^ (a >>> 15), 1 | a);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return [(t ^ (t >>> 14)) >>> 0, a];
}

function randomWalk(cfg: Extract<PriceFeedConfig, { kind: "random-walk" }>, markets: MarketList, repo: SimRepo): PriceFeed {
  const key = "feed:random-walk:state";
  const maxPpm = (cfg.volatilityBps ?? 5) * 100;
  return {
    intervalMs: cfg.intervalMs ?? 1000,
    initial: () => undefined,
    next(current) {
      let state = Number(repo.getMeta(key) ?? cfg.seed ?? 1);
      const out = new Map<string, bigint>();
      for (const m of markets.all) {
        const mark = current.get(m.name) ?? F.parse(m.startPx);
        const [u, s] = mulberry32(state);
        state = s;
        const stepPpm = BigInt((u % (2 * maxPpm + 1)) - maxPpm);
        const raw = (mark * (1_000_000n + stepPpm)) / 1_000_000n;
        out.set(m.name, F.parse(roundPrice(F.format(raw), m.szDecimals, "half-up")));
      }
      repo.setMeta(key, String(state));
      return out;
    },
  };
}

/** CSV: a header naming coins (other columns, e.g. time, are ignored), then one row of prices per tick. */
export function parsePriceCsv(text: string, markets: MarketList): Map<string, bigint>[] {
  const lines = text.split(/\r?\n/).map((l) => l.trim()).filter((l) => l && !l.startsWith("#"));
  const header = (lines.shift() ?? "").split(",").map((h) => h.trim());
  const rows = lines.map((line, i) => {
    const cells = line.split(",").map((c) => c.trim());
    const row = new Map<string, bigint>();
    header.forEach((coin, col) => {
      if (!markets.byCoin(coin) || !cells[col]) return;
      if (!isDecimalString(cells[col]) || F.parse(cells[col]) <= 0n) {
        throw new Error(`price CSV row ${i + 2}: bad ${coin} price ${cells[col]}`);
      }
      row.set(coin, F.parse(cells[col]));
    });
    return row;
  });
  if (rows.length === 0) throw new Error("price CSV has no rows");
  return rows;
}

function csvReplay(cfg: Extract<PriceFeedConfig, { kind: "csv" }>, markets: MarketList, repo: SimRepo): PriceFeed {
  const rows = parsePriceCsv(readFileSync(cfg.path, "utf8"), markets);
  const key = "feed:csv:cursor";
  return {
    intervalMs: cfg.intervalMs ?? 1000,
    initial: () => rows[0],
    next() {
      const cursor = Number(repo.getMeta(key) ?? 1);
      if (cursor >= rows.length && cfg.loop === false) return new Map();
      repo.setMeta(key, String(cursor + 1));
      return rows[cursor % rows.length];
    },
  };
}

export function createFeed(cfg: PriceFeedConfig, markets: MarketList, repo: SimRepo): PriceFeed {
  switch (cfg.kind) {
    case "random-walk":
      return randomWalk(cfg, markets, repo);
    case "csv":
      return csvReplay(cfg, markets, repo);
    case "static":
      return { initial: () => undefined, next: () => new Map() };
  }
}
