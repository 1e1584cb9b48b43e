// Moving USDC: between the user's spot and perp balances (usdClassTransfer), the transfers a paper
// exchange cannot make (signed withdrawals, sends to other users), refused in the venue's error form,
// and the test control's withdrawal (money leaving as a bridge withdrawal would take it). The caller
// holds the transaction.
import { isDecimalString } from "../../lib/decimal.js";
import { F, roundUsd, usd } from "../num.js";
import type { TransferAction } from "../wire.js";
import { syntheticHash, type EngineCtx } from "./context.js";
import { accountView, withdrawable } from "./margin.js";

export type TransferResult = { ok: true } | { error: string };

/** Runs a transfer signed by `user` (a funded master); `hash` names it in the ledger. */
export function runTransfer(ctx: EngineCtx, user: string, action: TransferAction, hash: string): TransferResult {
  const m = action.message;
  switch (action.type) {
    case "withdraw3":
      return { error: "Withdrawals are not possible on the sim: it is a paper exchange with no bridge." };
    case "spotSend":
      return { error: "spotSend is not possible on the sim: it lists no spot tokens but USDC and sends to no one." };
    case "usdSend":
      if (String(m.destination).toLowerCase() !== user) return { error: "usdSend to another user is not possible on the sim: it is a paper exchange." };
      return { ok: true };
    case "usdClassTransfer":
      return classTransfer(ctx, user, String(m.amount), m.toPerp === true, hash);
  }
}

function classTransfer(ctx: EngineCtx, user: string, text: string, toPerp: boolean, hash: string): TransferResult {
  // The venue lets a master move a sub-account's funds with " subaccount:0x..." appended; the sim has none.
  if (!isDecimalString(text)) return { error: "Invalid amount." };
  const amount = F.parse(text);
  if (amount <= 0n || F.round(amount, 6, "down") !== amount) return { error: "Invalid amount." };
  const perp = ctx.repo.getAccount(user)!.usdc;
  const spot = ctx.repo.spotUsdc(user);
  if (toPerp) {
    if (amount > spot) return { error: "Insufficient balance for transfer." };
    ctx.repo.setSpotUsdc(user, spot - amount);
    ctx.repo.setUsdc(user, perp + amount);
  } else {
    const free = withdrawable(accountView(ctx.repo, ctx.markets, user, ctx.cfg.defaultLeverage));
    if (amount > free) return { error: "Insufficient balance for transfer." };
    ctx.repo.setUsdc(user, perp - amount);
    ctx.repo.setSpotUsdc(user, spot + amount);
  }
  ctx.repo.insertLedger(user, { time: ctx.now(), hash, delta: { type: "accountClassTransfer", usdc: usd(amount), toPerp } });
  return { ok: true };
}

export type WithdrawResult = { usdc: bigint } | { error: string };

/**
 * Takes `amount` (18 decimals) out of the user's perp USDC, at most what is withdrawable (margin in
 * use and resting orders' margin stay), and records it as the venue records a bridge withdrawal. No
 * fee: nothing is bridged, so the whole amount is what leaves.
 */
export function withdrawUsdc(ctx: EngineCtx, user: string, amount: bigint): WithdrawResult {
  const account = ctx.repo.getAccount(user);
  if (!account) return { error: `${user} has no account on the sim` };
  // As clearinghouseState shows it (6 decimals, half-up), so "all of it" as shown is accepted.
  const free = roundUsd(withdrawable(accountView(ctx.repo, ctx.markets, user, ctx.cfg.defaultLeverage)));
  if (amount > free) return { error: `${usd(amount)} USDC is more than the account's withdrawable ${usd(free)} USDC (margin in use stays)` };
  const usdc = account.usdc - amount;
  ctx.repo.setUsdc(user, usdc);
  const now = ctx.now();
  const seq = ctx.repo.nextId("next_withdraw", 1);
  ctx.repo.insertLedger(user, {
    time: now,
    hash: syntheticHash(`withdraw:${seq}`),
    delta: { type: "withdraw", usdc: usd(amount), nonce: now, fee: "0.0" },
  });
  return { usdc };
}
