// Reads a vault's balance from its exchange account: equity (unrealized PnL included) minus the USDC
// moved in or out by others since the vault started, so a deposit is not profit and a withdrawal is
// not a drawdown. The vault starts at its first reading: what the account holds then is its capital
// (a first reading that differs from initialBalance is recorded as such), and every ledger record after
// that account state's time, up to the time of the state a reading is taken from, is netted out. Both
// times are the exchange's own, in ms, so a deposit a few ms after the first reading is netted too.
//
// Budget: the account state costs 2 request weight, the ledger 20. The ledger is re-read only when
// the account's cash may have moved: a transfer always moves it, so a reading whose cash and positions
// match the last read's cannot hide one. Cash is the account value less the positions' unrealized PnL
// (it moves with fills, fees, funding and transfers, not with prices). Funding lands on the hour, so
// a new hour also re-reads, and so does a cached total older than a few minutes or a caller that needs
// a fresh figure (unpause, close, a suspected breach). A quiet vault costs about 2 weight a cycle.
//
// The same account state shows the positions: when they differ from the last read, something
// filled (a resting order, a liquidation), and `onPositionsChanged` lets the vault balances read the fills
// at its next cycle instead of at its periodic sweep.
import type { VaultRow } from "../db/schema-chain.js";
import type { AccountState, ExchangeAdapter, ReadOptions } from "../exchange/types.js";
import { fixed } from "../lib/decimal.js";
import type { BalanceReading } from "./vault-chain.js";
import { externalTotal, netBalance } from "./vault-math.js";
import { USDC_DECIMALS } from "./units.js";

/** A vault's cached ledger total is read again after this long (sooner when cash moved or when asked fresh). */
export const LEDGER_MAX_AGE_MS = 5 * 60_000;

/** Venue figures are rounded to micro-USDC one by one: cash derived from them may wobble by this much with prices alone. */
const CASH_WOBBLE = 2n;
const HOUR_MS = 3_600_000;
const usd = fixed(USDC_DECIMALS);

export interface BalanceReaderOptions {
  /** How old a cached ledger total may get. */
  ledgerMaxAgeMs?: number;
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

/** Account value less unrealized PnL, in base units: what only fills, fees, funding and transfers move. */
export function cashOf(state: AccountState): bigint {
  let cash = usd.parse(state.accountValue, "floor");
  for (const p of state.positions) cash -= usd.parse(p.unrealizedPnl, "floor");
  return cash;
}

interface Cached {
  external: bigint;
  /** Exchange ms of the account state the ledger total holds for. */
  through: number;
  /** Daemon ms of the ledger read (for its maximum age). */
  at: number;
  cash: bigint;
  /** Each position's symbol, size and entry: a fill that leaves the sizes as they were still moves the entry. */
  positions: string;
  sizes: string;
}

export function createBalanceReader(exchange: ExchangeAdapter, clock: () => number, o: BalanceReaderOptions = {}): BalanceReader {
  const maxAge = o.ledgerMaxAgeMs ?? LEDGER_MAX_AGE_MS;
  const cache = new Map<string, Cached>();
  const snapshots = new Map<string, AccountSnapshot>();

  /** Where each vault's netting starts, once its first reading was taken (the row may not show it yet). */
  const starts = new Map<string, number>();

  async function ledgerTotal(v: VaultRow, from: number, through: number, opts: ReadOptions): Promise<bigint> {
    const ledger = await exchange.ledgerUpdates(v.exchange_account, from + 1, opts);
    return externalTotal(ledger.filter((u) => u.time > from && u.time <= through).map((u) => u.usdcDelta));
  }

  function stale(c: Cached | undefined, state: AccountState, cash: bigint, positions: string, now: number): boolean {
    if (!c) return true;
    const moved = cash > c.cash ? cash - c.cash : c.cash - cash;
    return moved > CASH_WOBBLE || positions !== c.positions || Math.floor(state.time / HOUR_MS) !== Math.floor(c.through / HOUR_MS)
      || now - c.at > maxAge;
  }

  return {
    async read(v, opts = {}) {
      const state = await exchange.accountState(v.exchange_account, opts);
      // Stamped when the answer came, not when the read was asked: a read that waited for the
      // exchange's budget describes the account as it is now, and the day it falls in is today's.
      const now = clock();
      const sizes = state.positions.map((p) => `${p.symbol}:${p.size}`).sort().join(",");
      const positions = state.positions.map((p) => `${p.symbol}:${p.size}:${p.entryPrice}`).sort().join(",");
      const cash = cashOf(state);
      let c = cache.get(v.address);
      if (c && c.sizes !== sizes) o.onPositionsChanged?.(v.address);
      const known = v.netting_from ?? starts.get(v.address);
      const nettingFrom = known ?? state.time;
      starts.set(v.address, nettingFrom);
      if (known === undefined || known === null) {
        c = { external: 0n, through: state.time, at: now, cash, positions, sizes };
      } else if (opts.fresh || !c || stale(c, state, cash, positions, now)) {
        c = { external: await ledgerTotal(v, nettingFrom, state.time, opts), through: state.time, at: now, cash, positions, sizes };
      } else {
        // Nothing moved the cash since the ledger was read: the same total holds up to this state.
        c = { ...c, through: state.time };
      }
      cache.set(v.address, c);
      const balance = netBalance(state.accountValue, c.external);
      snapshots.set(v.address, { state, external: c.external, at: now });
      // The contract ignores a reading that is not newer than the one it holds: never repeat a second.
      const observedAt = Math.max(Math.floor(now / 1000), (v.last_observed_at ?? 0) + 1);
      return {
        vault: v.address, balance, observedAt,
        source: { accountValue: state.accountValue, external: c.external, nettingFrom, stateTime: state.time, flat: state.positions.length === 0 },
      };
    },
    snapshot: (address) => snapshots.get(address),
  };
}
