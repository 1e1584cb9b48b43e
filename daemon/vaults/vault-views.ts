// Vault rows as the API's objects (SPEC 2.10-2.14), one `rowToX` per entity: camelCase, balances as
// USDC decimal strings, limits and drawdowns in percent. SPEC's numbers (size, price, pnl, profit,
// shares) stay exact decimal strings here; the HTTP edge renders them as JSON numbers.
import type { VaultTradeRow } from "../db/schema.js";
import { unpackEventData } from "../db/event-data.js";
import type { VaultEventRow, VaultRow } from "../db/schema-chain.js";
import type { VaultSummaryRow } from "../db/vaults-repo.js";
import { breachPolicyName } from "./breach-policies.js";
import { baseUnitsToUsdc, bpsToPercent } from "./units.js";
import { limitDrawdowns } from "./vault-math.js";

const usdcOrZero = (units: string | null) => baseUnitsToUsdc(units ?? "0");

type DrawdownColumns = Pick<VaultRow, "current_balance" | "peak_balance" | "day_start_balance" | "max_drawdown_bps" | "daily_drawdown_bps">;

/** Each drawdown at the vault's last reading beside its limit, in percent. */
export function drawdownFigures(v: DrawdownColumns) {
  const { maxBps, dailyBps } = limitDrawdowns({ peak: BigInt(v.peak_balance), dayStart: BigInt(v.day_start_balance) }, BigInt(v.current_balance));
  return {
    maxDrawdown: bpsToPercent(v.max_drawdown_bps), dailyDrawdown: bpsToPercent(v.daily_drawdown_bps),
    currentDrawdown: bpsToPercent(maxBps), currentDailyDrawdown: bpsToPercent(dailyBps),
  };
}

export function rowToSummary(v: VaultSummaryRow) {
  return {
    address: v.address,
    investor: v.investor,
    trader: v.trader,
    initialBalance: baseUnitsToUsdc(v.initial_balance),
    currentBalance: baseUnitsToUsdc(v.current_balance),
    status: v.closed ? ("CLOSED" as const) : ("ACTIVE" as const),
    paused: v.paused === 1,
    dealDeadline: v.deal_deadline,
    profitShare: { trader: bpsToPercent(v.trader_share_bps), investor: bpsToPercent(10_000 - v.trader_share_bps) },
    ...drawdownFigures(v),
  };
}
export type VaultSummary = ReturnType<typeof rowToSummary>;

export function rowToTrade(t: VaultTradeRow) {
  return {
    id: String(t.id), symbol: t.symbol, side: t.side, size: t.size, price: t.price, pnl: t.pnl, fee: t.fee,
    timestamp: Math.floor(t.time_ms / 1000),
  };
}
export type VaultTrade = ReturnType<typeof rowToTrade>;

const PAUSE_REASONS: Record<number, string> = { 1: "maxDrawdown", 2: "dailyDrawdown", 3: "both", 4: "accountMode" };

export function rowToDetail(v: VaultRow) {
  return {
    ...rowToSummary(v),
    exchangeAccount: v.exchange_account,
    peakBalance: baseUnitsToUsdc(v.peak_balance),
    dayStartBalance: baseUnitsToUsdc(v.day_start_balance),
    closed: v.closed === 1,
    lastBalanceUpdate: v.last_observed_at,
    pauseReason: v.paused ? (PAUSE_REASONS[v.pause_reason ?? 3] ?? "both") : null,
    breachPolicy: breachPolicyName(v.breach_policy),
    accountMode: v.account_mode,
    settlement: v.closed
      ? {
          finalBalance: usdcOrZero(v.final_balance), profit: usdcOrZero(v.profit), traderShare: usdcOrZero(v.trader_share),
          investorShare: usdcOrZero(v.investor_share), funded: baseUnitsToUsdc(v.funded_total),
          paidTrader: baseUnitsToUsdc(v.paid_trader), paidInvestor: baseUnitsToUsdc(v.paid_investor),
        }
      : { funded: baseUnitsToUsdc(v.funded_total) },
  };
}
export type VaultDetail = ReturnType<typeof rowToDetail>;

/**
 * SPEC 2.13, `leftOpen`: positions the close could not take off because the exchange refused dust, and
 * `escrow`: what the settlement escrow holds against the trader's share and what the investor must add.
 */
export function rowToCloseResult(
  v: VaultRow, leftOpen: readonly { symbol: string; size: string; value: string }[], escrow: { held: string; owedToTrader: string; toFund: string },
) {
  return {
    address: v.address,
    status: "CLOSED" as const,
    finalBalance: usdcOrZero(v.final_balance),
    profit: usdcOrZero(v.profit),
    traderShare: usdcOrZero(v.trader_share),
    investorShare: usdcOrZero(v.investor_share),
    leftOpen: leftOpen.map((p) => ({ symbol: p.symbol, size: p.size, value: p.value })),
    escrow: { held: escrow.held, owedToTrader: escrow.owedToTrader, toFund: escrow.toFund },
  };
}

/** Event fields in base units (amounts) and basis points (limits), as the contract emits them. */
const AMOUNT_KEYS = new Set([
  "balance", "peakBalance", "dayStartBalance", "initialBalance", "finalBalance", "profit", "traderShare", "investorShare",
  "amount", "expected", "observed",
]);

/** An event's data in the vault endpoints' units: USDC decimal strings, percentages for `...Bps` fields. */
export function eventData(type: string, data: Record<string, unknown>): Record<string, unknown> {
  if (type === "Fill") return data; // already exchange units (decimal strings)
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data)) {
    if (key === "breachPolicy" && typeof value === "number") out[key] = breachPolicyName(value);
    else if (key.endsWith("Bps") && (typeof value === "number" || typeof value === "string")) out[key.slice(0, -3)] = bpsToPercent(BigInt(value));
    else if (AMOUNT_KEYS.has(key) && typeof value === "string" && /^-?\d+$/.test(value)) out[key] = baseUnitsToUsdc(value);
    else out[key] = value;
  }
  return out;
}

export function rowToEvent(e: VaultEventRow) {
  return {
    id: e.id,
    vault: e.vault,
    type: e.type,
    time: e.time,
    txHash: e.tx_hash,
    blockNumber: e.block_number,
    data: eventData(e.type, unpackEventData(e.type, e.data)),
  };
}
export type VaultEvent = ReturnType<typeof rowToEvent>;
