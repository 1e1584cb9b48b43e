// Vault lives verified per minute (test/money/lives/ on the built daemon, one after another), and the
// time and memory a verification takes for a vault with many readings and fills (its checks over
// records made to that size, read from in-memory sources: the chain's and the exchange's own reading
// time is not in this figure, it depends on the RPC's and the venue's paging).
import { lifeFailure, playLife } from "../test/money/lives/life.js";
import { startWorld } from "../test/money/lives/world.js";
import { verifyVault } from "../daemon/verify/verify-vault.js";
import type { ChainEvent, ChainRecords, DaemonRecords, ExchangeRecords } from "../daemon/verify/records.js";
import type { BenchResult } from "./lib/report.js";

export interface LivesOptions {
  lives: number;
  readings: number;
  fills: number;
}

export const LIVES_FULL: LivesOptions = { lives: 6, readings: 10_000, fills: 1_000 };

/** A vault that trades a round trip between readings, fills spread over its life, all of it consistent. */
function bigVault(o: LivesOptions): { chain: ChainRecords; exchange: ExchangeRecords; daemon: DaemonRecords } {
  const t0 = 1_800_000_000;
  const terms = { vault: "0xV", investor: "0xI", trader: "0xT", exchangeAccount: "0xA", initialBalance: 10_000_000_000n, maxDrawdownBps: 5000, dailyDrawdownBps: 5000, traderShareBps: 2000, createdAt: t0, createdBlock: 1 };
  const events: ChainEvent[] = [];
  const readings: DaemonRecords["readings"] = [];
  const fills: ExchangeRecords["fills"] = [];
  let balance = 10_000_000_000n;
  let peak = balance;
  const fillEvery = Math.max(1, Math.floor(o.readings / (o.fills / 2)));
  for (let i = 0; i < o.readings; i++) {
    const at = t0 + 60 * i;
    if (i > 0 && i % fillEvery === 0 && fills.length + 2 <= o.fills) {
      // A round trip between two readings: +1.25 closed PnL, 0.25 in fees.
      fills.push({ tid: fills.length, oid: i, coin: "BTC", side: "B", sz: "0.01", closedPnl: "0", fee: "0.1", time: at * 1000 - 30_000 });
      fills.push({ tid: fills.length, oid: i + 1, coin: "BTC", side: "A", sz: "0.01", closedPnl: "1.25", fee: "0.15", time: at * 1000 - 20_000 });
      balance += 1_000_000n;
    }
    if (balance > peak) peak = balance;
    events.push({ type: "BalanceUpdated", block: i + 2, logIndex: 0, day: Math.floor(at / 86_400), balance, peak, dayStart: i === 0 || Math.floor(at / 86_400) !== Math.floor((at - 60) / 86_400) ? balance : (events.at(-1) as { dayStart: bigint }).dayStart, observedAt: at, drawdownBps: 0, dailyDrawdownBps: 0 });
    readings.push({ observedAt: at, accountValue: (Number(balance) / 1e6).toFixed(6), external: 0n, stateTime: at * 1000, flat: true });
  }
  return {
    chain: { terms, events, createdServed: true, held: { observedAt: (events.at(-1) as { observedAt: number }).observedAt, balance } },
    exchange: { fills, funding: [], ledger: [], orders: [] },
    daemon: { nettingFrom: t0 * 1000, readings, orders: [], ordersSettledBefore: 0 },
  };
}

export async function lives(o: LivesOptions): Promise<BenchResult> {
  const started = Date.now();
  const notes: string[] = [];
  const world = await startWorld();
  let livesPerMinute: number;
  try {
    const t = Date.now();
    for (let i = 0; i < o.lives; i++) {
      const life = await playLife(world, 7_000 + i, { withdrawals: true, kills: true });
      if (life.verification.outcome !== "holds") throw new Error(lifeFailure(life));
    }
    livesPerMinute = o.lives / ((Date.now() - t) / 60_000);
    notes.push(`${o.lives} lives one after another on one built daemon (oracle every second), each ending with its verification through the daemon`);
  } finally {
    await world.close();
  }

  const big = bigVault(o);
  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 5);
  const rssBefore = process.memoryUsage().rss;
  const t = performance.now();
  const v = await verifyVault("0xV", { chain: async () => big.chain, exchange: async () => big.exchange, daemon: async () => big.daemon }, 0);
  const verifyMs = performance.now() - t;
  clearInterval(sampler);
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
  if (v.outcome !== "holds") throw new Error(`the synthetic vault does not verify: ${JSON.stringify(v.invariants.filter((i) => i.status !== "holds"))}`);
  notes.push(`verification of ${o.readings} readings and ${o.fills} fills: ${Math.round(verifyMs)} ms; the process's resident set ${Math.round(rssBefore / 2 ** 20)} MiB before, ${Math.round(peakRss / 2 ** 20)} MiB at most while it ran`);
  return {
    name: "lives",
    setup: `${o.lives} lives; a vault of ${o.readings} readings and ${o.fills} fills`,
    figures: [
      { label: "vault lives verified per minute", value: livesPerMinute, unit: "/min" },
      { label: `verify, ${o.readings} readings and ${o.fills} fills`, value: verifyMs / 1000, unit: "s", target: "< 5 s", met: verifyMs < 5_000 },
      { label: "verify, peak resident set", value: peakRss / 2 ** 20, unit: "MiB", target: "< 200 MiB", met: peakRss / 2 ** 20 < 200 },
    ],
    peakRssMb: Math.round(peakRss / 2 ** 20),
    notes,
    seconds: (Date.now() - started) / 1000,
  };
}
