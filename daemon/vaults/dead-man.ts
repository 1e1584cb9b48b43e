// The dead-man's switch (--dead-man-seconds): each oracle cycle arms the exchange's scheduleCancel a
// configured time ahead on every active vault's account, so a daemon that dies leaves no vault order
// resting past that time. The venue gates it by traded volume ($1,000,000 on Hyperliquid in 2026): a
// refused account is tried again hourly, and /healthz says which accounts are armed and which are not.
import type { Logger } from "pino";
import type { VaultRow } from "../db/schema-chain.js";
import type { Signer } from "../exchange/types.js";

/** How long a refused account waits before the next try (each try is an exchange action). */
export const DEAD_MAN_RETRY_REFUSED_MS = 60 * 60_000;

export interface DeadManDeps {
  seconds: number;
  signerFor(account: string): Promise<Signer>;
  scheduleCancel(agent: Signer, timeMs: number): Promise<void>;
  clock: () => number;
  log: Logger;
}

export interface DeadManAccount {
  account: string;
  vault: string;
  armed: boolean;
  /** Unix seconds at which the exchange cancels the account's orders unless armed again. */
  cancelsAt: number | null;
  /** The exchange's refusal (e.g. its volume gate), while not armed. */
  error: string | null;
  /** Unix seconds of the last attempt. */
  triedAt: number;
}

export function createDeadMan(deps: DeadManDeps) {
  const { seconds, clock, log } = deps;
  const accounts = new Map<string, DeadManAccount>();

  async function arm(v: VaultRow): Promise<void> {
    const now = clock();
    const cancelsAtMs = now + seconds * 1000;
    try {
      await deps.scheduleCancel(await deps.signerFor(v.exchange_account), cancelsAtMs);
      accounts.set(v.exchange_account, {
        account: v.exchange_account, vault: v.address, armed: true, cancelsAt: Math.floor(cancelsAtMs / 1000), error: null, triedAt: Math.floor(now / 1000),
      });
    } catch (err) {
      const message = (err as Error).message;
      const before = accounts.get(v.exchange_account);
      if (before?.error !== message) log.warn({ vault: v.address, account: v.exchange_account, err: message }, "the exchange refused the dead-man's switch");
      accounts.set(v.exchange_account, {
        account: v.exchange_account, vault: v.address, armed: false, cancelsAt: null, error: message, triedAt: Math.floor(now / 1000),
      });
    }
  }

  return {
    /** Arms the switch for each live vault's account (refused ones hourly); forgets accounts no longer live. */
    async renew(live: readonly VaultRow[]): Promise<void> {
      const keep = new Set(live.map((v) => v.exchange_account));
      for (const account of accounts.keys()) if (!keep.has(account)) accounts.delete(account);
      for (const v of live) {
        const last = accounts.get(v.exchange_account);
        if (last && !last.armed && clock() - last.triedAt * 1000 < DEAD_MAN_RETRY_REFUSED_MS) continue;
        await arm(v);
      }
    },

    status(): { seconds: number; accounts: DeadManAccount[] } {
      return { seconds, accounts: [...accounts.values()] };
    },
  };
}

export type DeadMan = ReturnType<typeof createDeadMan>;
