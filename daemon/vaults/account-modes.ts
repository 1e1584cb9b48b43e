// The exchange account's abstraction mode under each vault (Hyperliquid `userAbstraction`). A vault's
// balance is the perp clearinghouse's account value, which means what the terms assume only in the
// standard modes: in unified and portfolio-margin mode every balance and hold is reported in the spot
// clearinghouse and the perp state "is not meaningful"; the discontinued dex abstraction lets other
// dexes draw on the same USDC. So a vault is created only on a standard account, and a vault whose
// account leaves the standard modes is paused on-chain (the operator's pause, reason 4) with an event
// saying from which mode to which; its trader can unpause once the account is standard again.
import type { Logger } from "pino";
import type { Executor } from "../db/store.js";
import type { VaultRow } from "../db/schema-chain.js";
import * as vaultsRepo from "../db/vaults-repo.js";
import { AppError } from "../errors.js";
import type { VaultBalances } from "./vault-balances.js";
import { OPERATOR_PAUSE_ACCOUNT_MODE } from "./vault-chain.js";

/** The modes whose perp account value is the account's value: a new account's, and standard set explicitly. */
export const VALUED_MODES: ReadonlySet<string> = new Set(["default", "disabled"]);
/** Each vault's mode is read again this often (20 weight a read: at 100 vaults about 133 weight a minute). */
export const ACCOUNT_MODE_CHECK_MS = 15 * 60_000;
/**
 * At most this many reads in one cycle, most overdue first: a hundred vaults all due at once (after a
 * start) would spend 2,000 weight, more than the exchange's budget for a minute, and hold that cycle
 * for a second. At 60-second cycles this covers 150 vaults within the period.
 */
export const ACCOUNT_MODE_READS_PER_CYCLE = 10;

export interface AccountModeDeps {
  db: Executor;
  balances: VaultBalances;
  /** The exchange's answer for the account (weight 20). */
  readMode(account: string): Promise<string>;
  /** The operator's pause for a reason the contract cannot see; resolves once applied. */
  pause(vault: string): Promise<unknown>;
  clock: () => number;
  log: Logger;
  checkEveryMs?: number;
}

const unsupported = (account: string, mode: string) =>
  `the exchange account ${account} is in ${mode} mode, whose perp balance is not the account's value; ` +
  `vaults need a standard account (Hyperliquid "disabled" or "default" abstraction)`;

export function createAccountModes(deps: AccountModeDeps) {
  const { db, balances, clock, log } = deps;
  const every = deps.checkEveryMs ?? ACCOUNT_MODE_CHECK_MS;

  /**
   * Reads one vault's account mode, records a change, and pauses the vault when it left the standard
   * modes. True when it paused it: the caller starts the vault's enforcement, as for a breach.
   */
  async function check(v: VaultRow): Promise<boolean> {
    const mode = await deps.readMode(v.exchange_account);
    const before = v.account_mode;
    await vaultsRepo.updateVault(db, v.address, { account_mode: mode, account_mode_checked_at: clock() });
    if (before === mode) return false;
    const valued = VALUED_MODES.has(mode);
    // The first read of a standard account is the baseline, not a change; a first read of another mode
    // is (the proposal's own check could not read it, or the mode changed before the first cycle).
    if (before === null && valued) return false;
    await balances.recordEvent({ vault: v.address, type: "AccountModeChanged", data: { from: before, to: mode, valued } });
    log.warn({ vault: v.address, from: before, to: mode }, "the vault's exchange account changed mode");
    if (valued || v.paused || v.closed) return false;
    await deps.pause(v.address);
    return true;
  }

  return {
    check,

    /**
     * Reads the vaults whose mode is due this cycle (never read, or read longer ago than the period);
     * returns the addresses of those it paused.
     */
    async checkDue(vaults: readonly VaultRow[]): Promise<string[]> {
      const now = clock();
      const due = vaults
        .filter((v) => v.account_mode_checked_at === null || now - v.account_mode_checked_at >= every)
        .sort((a, b) => (a.account_mode_checked_at ?? -1) - (b.account_mode_checked_at ?? -1))
        .slice(0, ACCOUNT_MODE_READS_PER_CYCLE);
      const paused: string[] = [];
      for (const v of due) {
        // A failed read is tried again next cycle; it never pauses a vault by itself.
        const pausedIt = await check(v).catch((err) => {
          log.warn({ vault: v.address, err: (err as Error).message }, "cannot read the account's mode");
          return false;
        });
        if (pausedIt) paused.push(v.address);
      }
      return paused;
    },

    /** Before anyone signs: terms on an account the oracle cannot value are refused (`read`: how a user's request reads it). */
    async assertValued(account: string, read: (account: string) => Promise<string> = deps.readMode): Promise<void> {
      const mode = await read(account);
      if (!VALUED_MODES.has(mode)) {
        throw new AppError("INVALID_INPUT", `exchangeAccount: ${unsupported(account, mode)}`, {
          details: [{ field: "body.exchangeAccount", message: unsupported(account, mode) }],
        });
      }
    },

    /**
     * Unpause refuses while the account is still in a mode the oracle cannot value. Only a vault the
     * mode paused (or last seen in such a mode) is read again: a breach's unpause costs no weight here.
     */
    async assertUnpausable(v: VaultRow): Promise<void> {
      const byMode = ((v.pause_reason ?? 0) & OPERATOR_PAUSE_ACCOUNT_MODE) !== 0;
      if (!byMode && (v.account_mode === null || VALUED_MODES.has(v.account_mode))) return;
      const mode = await deps.readMode(v.exchange_account);
      if (!VALUED_MODES.has(mode)) throw new AppError("CONFLICT", `${unsupported(v.exchange_account, mode)}; switch it back, then unpause`);
    },
  };
}

export type AccountModes = ReturnType<typeof createAccountModes>;
