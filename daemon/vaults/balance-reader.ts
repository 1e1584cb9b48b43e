// Reads a vault's balance from its exchange account: equity (unrealized PnL included) minus the USDC
// moved in or out by others since the vault started, so a deposit is not profit and a withdrawal is
// not a drawdown.
//
// Budget: the account state costs 2 request weight, the ledger 20. The ledger is therefore re-read
// only every few minutes, or at once when the balance jumps (a deposit or withdrawal looks like a
// jump), or when the caller needs a fresh figure (unpause, close, a suspected breach). So a cycle
// costs about 2 weight per vault, and a transfer can never pause a vault or lift its peak unnoticed
// beyond the jump threshold.
//
// The same account state shows the positions: when they differ from the last read, something
// filled (a resting order, a liquidation), and `onPositionsChanged` lets the vault balances read the fills
// at its next cycle instead of at its periodic sweep.
import type { VaultRow } from "../db/schema-chain.js";
import type { AccountState, ExchangeAdapter, ReadOptions } from "../exchange/types.js";
import type { BalanceReading } from "./vault-chain.js";
import { externalTotal, netBalance } from "./vault-math.js";

/** A vault's cached ledger total is read again after this long (sooner on a jump or when asked fresh). */
export const LEDGER_MAX_AGE_MS = 5 * 60_000;

export interface BalanceReaderOptions {
  /** How old a cached ledger total may get. */
  ledgerMaxAgeMs?: number;
  /** A move bigger than this (basis points of the last balance) re-reads the ledger first. */
  jumpBps?: number;
  /** Called when a vault's positions differ from the previous read's (not on its first read). */
  onPositionsChanged?: (vault: string) => void;
}

/** What the last read of a vault's account saw: the base for revaluing it at newer prices. */
export interface AccountSnapshot {
  state: AccountState;
  /** Net USDC moved in by others since the vault started (base units). */
  external: bigint;
  /** Unix ms of the read. */
  at: number;
}

export interface BalanceReader {
  read(vault: VaultRow, opts?: ReadOptions & { fresh?: boolean }): Promise<BalanceReading>;
  /** The last read of the vault's account, if any. */
  snapshot(vault: string): AccountSnapshot | undefined;
}

export function createBalanceReader(exchange: ExchangeAdapter, clock: () => number, o: BalanceReaderOptions = {}): BalanceReader {
  const maxAge = o.ledgerMaxAgeMs ?? LEDGER_MAX_AGE_MS;
  const jumpBps = BigInt(o.jumpBps ?? 50);
  const cache = new Map<string, { external: bigint; at: number; last: bigint; positions: string }>();
  const snapshots = new Map<string, AccountSnapshot>();

  async function ledgerTotal(v: VaultRow, opts: ReadOptions): Promise<bigint> {
    // Block times are whole seconds: a transfer in the vault's creation second counts as capital the
    // account already had (what initialBalance describes), not as an external transfer.
    const startMs = (v.created_at + 1) * 1000;
    const ledger = await exchange.ledgerUpdates(v.exchange_account, startMs, opts);
    return externalTotal(ledger.filter((u) => u.time >= startMs).map((u) => u.usdcDelta));
  }

  return {
    async read(v, opts = {}) {
      const state = await exchange.accountState(v.exchange_account, opts);
      // Stamped when the answer came, not when the read was asked: a read that waited for the
      // exchange's budget describes the account as it is now, and the day it falls in is today's.
      const now = clock();
      const positions = state.positions.map((p) => `${p.symbol}:${p.size}`).sort().join(",");
      let c = cache.get(v.address);
      if (c && c.positions !== positions) o.onPositionsChanged?.(v.address);
      const jumped = (balance: bigint) => c !== undefined && c.last > 0n && (balance > c.last ? balance - c.last : c.last - balance) * 10_000n > jumpBps * c.last;
      if (opts.fresh || !c || now - c.at > maxAge || jumped(netBalance(state.accountValue, c.external))) {
        c = { external: await ledgerTotal(v, opts), at: now, last: c?.last ?? 0n, positions };
      }
      const balance = netBalance(state.accountValue, c.external);
      cache.set(v.address, { ...c, last: balance, positions });
      snapshots.set(v.address, { state, external: c.external, at: now });
      // The contract ignores a reading that is not newer than the one it holds: never repeat a second.
      const observedAt = Math.max(Math.floor(now / 1000), (v.last_observed_at ?? 0) + 1);
      return { vault: v.address, balance, observedAt };
    },
    snapshot: (address) => snapshots.get(address),
  };
}
