// The test controls that move USDC into and out of an account from outside the venue: the faucet (a
// deposit) and the withdrawal (money leaving as a bridge withdrawal takes it). Both take the amount
// as a JSON number or decimal text and land in userNonFundingLedgerUpdates, timed by the sim's clock.
import { isAddress } from "ethers";
import { numberToDecimalString, parseDecimal, toDecimalString } from "../lib/decimal.js";
import { ControlInputError, FaucetHookError } from "./controls.js";
import { creditUsdc } from "./engine/actions.js";
import type { EngineCtx } from "./engine/context.js";
import { withdrawUsdc } from "./engine/transfers.js";
import { F } from "./num.js";
import type { SimLogger } from "./types.js";

export interface FaucetResult {
  user: string;
  amount: string;
  /** The account's USDC balance after the credit. */
  usdc: string;
}

/** The account's USDC balance after the withdrawal, as for the faucet. */
export type WithdrawalResult = FaucetResult;

export interface FaucetDeps {
  ctx: EngineCtx;
  /** Largest single credit, 18 decimals. */
  maxFaucet: bigint;
  onFaucet?: (user: string, amountBaseUnits: bigint) => Promise<void>;
  logger: SimLogger;
}

const SCALE_UP = 10n ** 12n; // USDC base units (6 decimals) to the engine's 18

export function userAddress(user: unknown): string {
  if (typeof user !== "string" || !isAddress(user)) throw new ControlInputError(`bad user address ${String(user)}`);
  return user.toLowerCase();
}

/** USDC base units (6 decimals) of an amount given as JSON number or decimal text. */
function usdcAmount(amount: string | number): bigint {
  let base: bigint;
  try {
    base = parseDecimal(typeof amount === "number" ? numberToDecimalString(amount) : toDecimalString(amount), 6);
  } catch {
    throw new ControlInputError(`bad amount ${String(amount)}: a positive USDC amount with at most 6 decimals`);
  }
  return base;
}

export async function faucetCredit(deps: FaucetDeps, user: string, amount: string | number): Promise<FaucetResult> {
  const address = userAddress(user);
  const base = usdcAmount(amount);
  if (base <= 0n || base * SCALE_UP > deps.maxFaucet) throw new ControlInputError(`amount must be > 0 and <= ${F.format(deps.maxFaucet)}`);
  const { ctx } = deps;
  // An address is either an account or an agent, never both (a funded agent would act for itself).
  const agent = ctx.repo.getAgent(address);
  if (agent && agent.validUntil > ctx.now()) throw new ControlInputError(`${address} is an agent of ${agent.user}`);
  // The hook (e.g. minting settlement tokens) runs first and outside any transaction: if it
  // fails nothing is credited.
  if (deps.onFaucet) {
    try {
      await deps.onFaucet(address, base);
    } catch (e) {
      deps.logger.warn({ err: e, user: address }, "sim faucet hook failed");
      throw new FaucetHookError(`faucet hook failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  const value = base * SCALE_UP;
  const usdc = ctx.tx(() => creditUsdc(ctx, address, value));
  return { user: address, amount: F.format(value), usdc: F.format(usdc, 6) };
}

/** Refused (ControlInputError) beyond the account's withdrawable; the chain's token is not touched. */
export function withdrawal(ctx: EngineCtx, user: string, amount: string | number): WithdrawalResult {
  const address = userAddress(user);
  const base = usdcAmount(amount);
  if (base <= 0n) throw new ControlInputError("amount must be > 0");
  const value = base * SCALE_UP;
  const r = ctx.tx(() => withdrawUsdc(ctx, address, value));
  if ("error" in r) throw new ControlInputError(r.error);
  return { user: address, amount: F.format(value), usdc: F.format(r.usdc, 6) };
}
