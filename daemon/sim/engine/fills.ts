// Applying one fill to an account: position size and cost basis, realized PnL on the reducing part,
// the fee, the USDC balance, an isolated position's margin, and the userFills record. The caller
// holds the transaction.
import { F, abs, min, roundUsd, sign, usd, exact } from "../num.js";
import type { SimRepo } from "../store/repo.js";
import type { FillRecord } from "../types.js";

export interface FeeSchedule {
  /** Fee rates as decimal fractions of notional ("0.00045" = 0.045%). */
  taker: string;
  maker: string;
}

export const DEFAULT_FEES: FeeSchedule = { taker: "0.00045", maker: "0.00015" };

export interface FillInput {
  user: string;
  coin: string;
  isBuy: boolean;
  px: bigint;
  sz: bigint;
  oid: number;
  cloid: string | null;
  /** True for the taker side (Hyperliquid's `crossed`). */
  crossed: boolean;
  hash: string;
  time: number;
  liquidation?: FillRecord["liquidation"];
  /** The venue's `dir` for a forced fill ("Liquidated Cross Long", "Auto-Deleveraging"); else from the position. */
  dir?: string;
  /** No fee (an auto-deleveraging fill: the account traded nothing of its own). */
  feeless?: boolean;
}

export interface FillResult {
  record: FillRecord;
  closedPnl: bigint;
  fee: bigint;
}

function direction(start: bigint, isBuy: boolean, sz: bigint): string {
  if (start === 0n || (start > 0n) === isBuy) return isBuy ? "Open Long" : "Open Short";
  if (sz <= abs(start)) return start > 0n ? "Close Long" : "Close Short";
  return start > 0n ? "Long > Short" : "Short > Long";
}

/**
 * An isolated position's margin follows its size: the closed share goes back to the cross balance,
 * and opening moves the new size's initial margin (at the fill price and the coin's leverage) out of
 * it. PnL and fees settle on the cross balance, as for a cross position. Returns what the cross
 * balance gains (negative when margin moved out). Cross positions: 0.
 */
function moveIsolatedMargin(repo: SimRepo, f: FillInput, startSz: bigint, closing: bigint, opening: bigint): bigint {
  const margin = repo.isolatedMargin(f.user, f.coin);
  if (margin === undefined) return 0n;
  const released = closing === 0n ? 0n : closing === startSz ? margin : roundUsd((margin * closing) / startSz, "down");
  // updateLeverage stores the leverage whenever it makes a coin isolated.
  const leverage = BigInt(repo.getLeverage(f.user, f.coin)!);
  const allocated = opening === 0n ? 0n : roundUsd(F.mul(f.px, opening, "up") / leverage, "up");
  repo.setIsolatedMargin(f.user, f.coin, margin - released + allocated);
  return released - allocated;
}

export function applyFill(repo: SimRepo, fees: FeeSchedule, tid: number, f: FillInput): FillResult {
  const pos = repo.getPosition(f.user, f.coin);
  const start = pos.szi;
  const signed = f.isBuy ? f.sz : -f.sz;
  const closing = start !== 0n && sign(start) !== sign(signed) ? min(abs(start), f.sz) : 0n;
  let pnl = 0n;
  if (closing > 0n) {
    // Release the closed share of the cost basis; the whole basis when the position closes fully.
    const basis = closing === abs(start) ? pos.entryNtl : (pos.entryNtl * closing) / abs(start);
    const proceeds = F.mul(f.px, closing, "half-up");
    pnl = start > 0n ? proceeds - basis : basis - proceeds;
    pos.entryNtl -= basis;
  }
  const opening = f.sz - closing;
  if (opening > 0n) pos.entryNtl += F.mul(f.px, opening, "half-up");
  pos.szi = start + signed;
  if (pos.szi === 0n) pos.entryNtl = 0n;
  repo.savePosition(pos);

  const rate = F.parse(f.crossed ? fees.taker : fees.maker);
  const fee = f.feeless ? 0n : roundUsd(F.mul(F.mul(f.px, f.sz, "half-up"), rate, "half-up"));
  const closedPnl = roundUsd(pnl);
  const account = repo.getAccount(f.user)!;
  const fromIsolated = moveIsolatedMargin(repo, f, abs(start), closing, opening);
  repo.setUsdc(f.user, account.usdc + closedPnl - fee + fromIsolated);
  repo.addVolume(f.user, F.mul(f.px, f.sz, "half-up"));
  // cumFunding: sinceChange restarts at every fill, sinceOpen when the position closes or flips.
  const totals = repo.fundingTotals(f.user, f.coin);
  const reopened = pos.szi === 0n || sign(pos.szi) !== sign(start);
  repo.setFundingTotals(f.user, f.coin, { ...totals, sinceChange: 0n, sinceOpen: reopened ? 0n : totals.sinceOpen });

  const record: FillRecord = {
    coin: f.coin,
    px: exact(f.px),
    sz: exact(f.sz),
    side: f.isBuy ? "B" : "A",
    time: f.time,
    startPosition: exact(start),
    dir: f.dir ?? direction(start, f.isBuy, f.sz),
    closedPnl: usd(closedPnl),
    hash: f.hash,
    oid: f.oid,
    crossed: f.crossed,
    fee: usd(fee),
    tid,
    ...(f.cloid ? { cloid: f.cloid } : {}),
    feeToken: "USDC",
    twapId: null,
    ...(f.liquidation ? { liquidation: f.liquidation } : {}),
  };
  repo.insertFill(f.user, record);
  return { record, closedPnl, fee };
}
