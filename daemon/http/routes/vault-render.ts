// SPEC 2.10-2.14 shapes from vault rows: balances as USDC decimal strings, percentages and PnL as
// JSON numbers rendered from exact values here, timestamps in Unix seconds.
import type { VaultTradeRow } from "../../db/schema.js";
import type { VaultEventRow, VaultRow } from "../../db/schema-chain.js";
import { baseUnitsToUsdc, bpsToPercent } from "../../vaults/units.js";
import { drawdownBps } from "../../vaults/vault-math.js";

const usdcNumber = (units: string | null) => (units === null ? 0 : Number(baseUnitsToUsdc(units)));

export function renderSummary(v: Pick<VaultRow, "address" | "investor" | "trader" | "initial_balance" | "current_balance" | "closed" | "paused" | "deal_deadline" | "trader_share_bps">) {
  return {
    address: v.address,
    investor: v.investor,
    trader: v.trader,
    initialBalance: baseUnitsToUsdc(v.initial_balance),
    currentBalance: baseUnitsToUsdc(v.current_balance),
    status: v.closed ? "CLOSED" : "ACTIVE",
    paused: v.paused === 1,
    dealDeadline: v.deal_deadline,
    profitShare: { trader: bpsToPercent(v.trader_share_bps), investor: bpsToPercent(10_000 - v.trader_share_bps) },
  };
}

export function renderTrade(t: VaultTradeRow) {
  return {
    id: String(t.id),
    symbol: t.symbol,
    side: t.side,
    size: Number(t.size),
    price: Number(t.price),
    pnl: Number(t.pnl),
    fee: Number(t.fee),
    timestamp: Math.floor(t.time_ms / 1000),
  };
}

export function renderDetail(v: VaultRow, trades: VaultTradeRow[], positions: unknown[]) {
  const current = BigInt(v.current_balance);
  return {
    ...renderSummary(v),
    exchangeAccount: v.exchange_account,
    peakBalance: baseUnitsToUsdc(v.peak_balance),
    dayStartBalance: baseUnitsToUsdc(v.day_start_balance),
    closed: v.closed === 1,
    maxDrawdown: bpsToPercent(v.max_drawdown_bps),
    dailyDrawdown: bpsToPercent(v.daily_drawdown_bps),
    currentDrawdown: bpsToPercent(drawdownBps(BigInt(v.peak_balance), current)),
    currentDailyDrawdown: bpsToPercent(drawdownBps(BigInt(v.day_start_balance), current)),
    lastBalanceUpdate: v.last_observed_at,
    pauseReason: v.paused ? (v.pause_reason === 1 ? "maxDrawdown" : v.pause_reason === 2 ? "dailyDrawdown" : "both") : null,
    settlement: v.closed
      ? {
          finalBalance: baseUnitsToUsdc(v.final_balance ?? "0"),
          profit: usdcNumber(v.profit),
          traderShare: usdcNumber(v.trader_share),
          investorShare: usdcNumber(v.investor_share),
          funded: baseUnitsToUsdc(v.funded_total),
          paidTrader: baseUnitsToUsdc(v.paid_trader),
          paidInvestor: baseUnitsToUsdc(v.paid_investor),
        }
      : { funded: baseUnitsToUsdc(v.funded_total) },
    trades: trades.map(renderTrade),
    positions,
  };
}

export function renderCloseResult(v: VaultRow) {
  return {
    address: v.address,
    status: "CLOSED" as const,
    finalBalance: baseUnitsToUsdc(v.final_balance ?? "0"),
    profit: usdcNumber(v.profit),
    traderShare: usdcNumber(v.trader_share),
    investorShare: usdcNumber(v.investor_share),
  };
}

export function renderEvent(e: VaultEventRow) {
  return {
    id: e.id,
    type: e.type,
    time: e.time,
    txHash: e.tx_hash,
    blockNumber: e.block_number,
    data: JSON.parse(e.data) as Record<string, unknown>,
  };
}
