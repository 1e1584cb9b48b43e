// Translates what ethers throws at the chain boundary into AppError. Reverts are decoded from their
// data with the contracts' ABIs (custom error name + args), never from message text; transport
// failures are told apart by ethers' `code`.
import { ErrorFragment, Interface, isError } from "ethers";
import { AppError, isAppError } from "../errors.js";
import type { ErrorCode } from "../errors.js";
import { CONTRACT_NAMES, loadArtifact } from "./artifacts.js";

export interface DecodedRevert {
  /** Custom error name, or "Error" / "Panic" for the built-in ones. */
  name: string;
  args: unknown[];
  /** The 4-byte selector, or undefined when the revert carried no data at all. */
  selector?: string;
}

/** API code for each contract error the daemon can meet; anything else is INTERNAL. */
export const REVERT_CODES: Readonly<Record<string, ErrorCode>> = {
  NotAuthorized: "FORBIDDEN",
  OwnableUnauthorizedAccount: "FORBIDDEN",
  InvalidParty: "INVALID_INPUT",
  VaultClosed: "VAULT_CLOSED",
  VaultNotClosed: "VAULT_NOT_CLOSED",
  NotPaused: "CONFLICT",
  NotRecovered: "NOT_RECOVERED",
  DealExpired: "DEAL_EXPIRED",
  TermsExpired: "CONFLICT",
  TermsAlreadyUsed: "CONFLICT",
  InvalidSignature: "INVALID_INPUT",
  InvalidTerms: "INVALID_INPUT",
  InvalidAmount: "INVALID_INPUT",
  NothingToWithdraw: "NOTHING_TO_WITHDRAW",
  ERC20InsufficientBalance: "INSUFFICIENT_BALANCE",
  ERC20InsufficientAllowance: "INVALID_INPUT",
  ERC2612ExpiredSignature: "INVALID_INPUT",
  ERC2612InvalidSigner: "INVALID_INPUT",
};

/** What each revert a user can meet means, in words (the revert's name stays in `details`). */
export const REVERT_MESSAGES: Readonly<Record<string, string>> = {
  NotAuthorized: "the caller may not do this on this vault",
  VaultClosed: "the vault is closed",
  VaultNotClosed: "the vault is not closed yet",
  NotPaused: "the vault is not paused",
  NotRecovered: "the balance has not recovered inside both drawdown limits",
  DealExpired: "the deal deadline has passed",
  TermsExpired: "the proposal's terms expired before the vault was deployed",
  TermsAlreadyUsed: "these terms have already deployed a vault",
  InvalidSignature: "a signature does not match the terms",
  InvalidAmount: "the amount must be more than 0",
  NothingToWithdraw: "there is nothing left for this party to withdraw",
  ERC20InsufficientBalance: "the account does not hold enough of the settlement token",
  ERC2612ExpiredSignature: "the permit has expired",
  ERC2612InvalidSigner: "the permit was not signed by the investor",
};

/** Transport-level ethers codes after which the same call may well succeed. */
const RETRYABLE_CODES = ["NETWORK_ERROR", "TIMEOUT", "SERVER_ERROR", "NONCE_EXPIRED", "REPLACEMENT_UNDERPRICED"] as const;

/** One Interface holding every error of every contract we ship (OpenZeppelin's included). */
export function errorInterface(): Interface {
  const seen = new Map<string, ErrorFragment>();
  for (const name of CONTRACT_NAMES) {
    for (const fragment of new Interface(loadArtifact(name).abi).fragments) {
      if (ErrorFragment.isFragment(fragment)) seen.set(fragment.selector, fragment);
    }
  }
  return new Interface([...seen.values()]);
}

/** Finds the revert data in an ethers error (or in the provider error it wraps). */
function revertData(e: unknown): string | undefined {
  const candidates: unknown[] = [];
  let cur: unknown = e;
  for (let depth = 0; depth < 4 && cur && typeof cur === "object"; depth++) {
    const o = cur as Record<string, unknown>;
    candidates.push(o.data, (o.data as Record<string, unknown> | undefined)?.data);
    cur = o.error ?? (o.info as Record<string, unknown> | undefined)?.error ?? o.cause;
  }
  return candidates.find((c): c is string => typeof c === "string" && /^0x([0-9a-f]{2})*$/i.test(c) && c.length >= 10);
}

/** The contract error behind `e`, if `e` is a revert; undefined for anything else. */
export function decodeRevert(e: unknown): DecodedRevert | undefined {
  if (!isError(e, "CALL_EXCEPTION")) return undefined;
  const data = revertData(e);
  if (data) {
    const parsed = errorInterface().parseError(data);
    if (parsed) return { name: parsed.name, args: [...parsed.args], selector: parsed.selector };
  }
  if (e.revert) return { name: e.revert.name, args: [...e.revert.args], selector: data?.slice(0, 10) };
  return { name: "Unknown", args: [], selector: data?.slice(0, 10) };
}

export function isRevert(e: unknown, name: string): boolean {
  return decodeRevert(e)?.name === name;
}

/** JSON-safe copies of decoded args (bigints become decimal strings). */
function plainArgs(args: unknown[]): unknown[] {
  return args.map((a) => (typeof a === "bigint" ? a.toString() : a));
}

/** Any error from a chain call, as an AppError (AppErrors pass through unchanged). */
export function toAppError(e: unknown, action = "chain call"): AppError {
  if (isAppError(e)) return e;
  const revert = decodeRevert(e);
  if (revert) {
    const code = REVERT_CODES[revert.name] ?? "INTERNAL";
    const words = REVERT_MESSAGES[revert.name];
    return new AppError(code, words ? `${action}: ${words}` : `${action} reverted: ${revert.name}`, {
      details: { revert: revert.name, args: plainArgs(revert.args) },
      cause: e,
    });
  }
  if (isError(e, "INSUFFICIENT_FUNDS")) {
    return new AppError("CHAIN_UNAVAILABLE", `${action}: the sending account cannot pay for gas`, { cause: e });
  }
  const code = (e as { code?: unknown } | null)?.code;
  if (typeof code === "string" && (RETRYABLE_CODES as readonly string[]).includes(code)) {
    return new AppError("CHAIN_UNAVAILABLE", `${action} failed: ${code}`, { retryable: true, cause: e });
  }
  return new AppError("INTERNAL", `${action} failed`, { cause: e });
}
