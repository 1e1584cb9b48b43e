// A vault's performance figures (GET /api/vaults/:address/performance), computed exactly from what is
// stored: the BalanceUpdated readings, the fills' fees (vault_trades), and the funding the exchange
// reports for the vault's account (funding is not stored: userFunding is read as the user's request
// asks, kept a few seconds per account and weighed against the user's budget: exchange/user-reads.ts).
// Definitions: README "Performance figures" and docs/design.md.
import * as perfRepo from "../db/performance-repo.js";
import type { VaultRow } from "../db/schema-chain.js";
import type { Executor } from "../db/store.js";
import { isAppError } from "../errors.js";
import type { UserReads } from "../exchange/user-reads.js";
import { formatDecimal } from "../lib/decimal.js";
import {
  annualizedBps, createDecimalSum, createReadingWalk, returnBps, settlementIfClosed, type DailyFigure,
} from "./performance-math.js";
import { baseUnitsToUsdc } from "./units.js";
import { vaultFor } from "./vault-access.js";

/** Events (or fills) read per query: a page's rows, never the vault's whole history, are in memory. */
const PAGE = 1_000;

export interface VaultPerformance {
  /** Percentages as decimal text with two decimals at most (the edge renders JSON numbers). */
  returnPct: string;
  annualizedReturnPct: string | null;
  maxDrawdownPct: string;
  maxDrawdownAt: number | null;
  daily: Array<{ day: string; closingBalance: string; pnl: string }>;
  feesPaid: string;
  /** Null when the exchange could not be read. */
  fundingPaid: string | null;
  /**
   * Null once the vault is closed (its settlement is then the vault's own). `asOf` is the reading the
   * figures stand on, up to an oracle interval old: null before the first one (the initial balance).
   */
  ifClosedNow: { profit: string; traderShare: string; investorShare: string; asOf: number | null } | null;
}

const pct = (bps: bigint | number) => formatDecimal(BigInt(bps), 2);
const usdc = (units: bigint) => baseUnitsToUsdc(units);
const renderDay = (d: DailyFigure) => ({ day: d.day, closingBalance: usdc(d.closingBalance), pnl: usdc(d.pnl) });

/** What close() would settle at the vault's last reading, and when that reading was taken. */
function ifClosedNow(v: VaultRow, balance: bigint): NonNullable<VaultPerformance["ifClosedNow"]> {
  const settle = settlementIfClosed(BigInt(v.initial_balance), balance, v.trader_share_bps);
  return {
    profit: usdc(settle.profit), traderShare: usdc(settle.traderShare), investorShare: usdc(settle.investorShare), asOf: v.last_observed_at,
  };
}

export function createVaultPerformance(deps: { db: Executor; reads: Pick<UserReads, "as"> }) {
  const { db, reads } = deps;

  async function walkReadings(v: VaultRow) {
    const walk = createReadingWalk(BigInt(v.initial_balance));
    for (let after = 0; ;) {
      const page = await perfRepo.readingsPage(db, v.address, after, PAGE);
      for (const r of page.rows) walk.add(BigInt(r.balance), r.at);
      if (page.lastSeq === null) return walk.finish();
      after = page.lastSeq;
    }
  }

  async function feesPaid(v: VaultRow): Promise<string> {
    const sum = createDecimalSum();
    for (let after = 0; ;) {
      const rows = await perfRepo.feesPage(db, v.address, after, PAGE);
      for (const r of rows) sum.add(r.fee);
      if (rows.length === 0) break;
      after = rows.at(-1)!.seq;
    }
    const { value, scale } = sum.total();
    return formatDecimal(value, scale);
  }

  /**
   * Funding the account paid (+) or received (-) since the vault began, until it closed. Null when
   * the exchange cannot be read; past the user's budget the request is refused instead (a null would
   * read as an outage, and a retry shortly after gets the figure).
   */
  async function fundingPaid(user: string, v: VaultRow): Promise<string | null> {
    const payments = await reads.as(user).fundingPayments(v.exchange_account, v.created_at * 1000).catch((err: unknown) => {
      if (isAppError(err) && err.code === "RATE_LIMITED") throw err;
      return undefined;
    });
    if (!payments) return null;
    const end = v.closed_at === null ? Infinity : v.closed_at * 1000;
    const sum = createDecimalSum();
    for (const p of payments) if (p.time <= end) sum.add(p.usdc);
    const { value, scale } = sum.total();
    return formatDecimal(-value, scale);
  }

  return {
    async performance(user: string, address: string): Promise<VaultPerformance> {
      const { vault: v } = await vaultFor(db, user, address);
      const initial = BigInt(v.initial_balance);
      const latest = BigInt(v.closed ? (v.final_balance ?? v.current_balance) : v.current_balance);
      const asOf = v.closed ? (v.closed_at ?? v.created_at) : (v.last_observed_at ?? v.created_at);
      const [walk, fees, funding] = await Promise.all([walkReadings(v), feesPaid(v), fundingPaid(user, v)]);
      const annual = annualizedBps(initial, latest, asOf - v.created_at);
      return {
        returnPct: pct(returnBps(initial, latest)),
        annualizedReturnPct: annual === null ? null : pct(annual),
        maxDrawdownPct: pct(walk.maxDrawdownBps),
        maxDrawdownAt: walk.maxDrawdownAt,
        daily: walk.daily.map(renderDay),
        feesPaid: fees,
        fundingPaid: funding,
        ifClosedNow: v.closed ? null : ifClosedNow(v, latest),
      };
    },
  };
}

export type VaultPerformanceService = ReturnType<typeof createVaultPerformance>;
