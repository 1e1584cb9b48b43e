// Vault reads and actions (SPEC 3.1, 4.10-4.15, DESIGN section 7), and the work of one oracle cycle.
// Rules live here; the contract enforces the objective ones again (recovery, closed state, who gets
// paid). Balances come from vault-balances.ts; a pause's orders and positions are enforcement.ts's; the
// escrow's funding and withdrawals are vault-settlement.ts's.
import type { Logger } from "pino";
import type { Executor } from "../db/store.js";
import type { VaultRow } from "../db/schema-chain.js";
import * as tradesRepo from "../db/vault-trades-repo.js";
import * as vaultsRepo from "../db/vaults-repo.js";
import { AppError, isAppError } from "../errors.js";
import type { AccountViews, PositionView } from "../trading/account-views.js";
import type { AccountModes } from "./account-modes.js";
import type { DeadMan } from "./dead-man.js";
import type { Enforcement } from "./enforcement.js";
import type { DustPosition } from "./exposure.js";
import type { UpdateResult, VaultBalances } from "./vault-balances.js";
import { assertOpen, vaultFor, vaultWithRole } from "./vault-access.js";
import type { VaultChainOps } from "./vault-chain.js";
import { createVaultSettlement } from "./vault-settlement.js";
import type { VaultShare } from "./vault-share.js";
import { notRecovered } from "./refusals.js";
import { rowToCloseResult, rowToDetail, rowToEvent, rowToSummary, rowToTrade, type VaultSummary } from "./vault-views.js";

export interface VaultServiceDeps {
  db: Executor;
  /** The store's change key: the list cache is valid while it does not move. */
  changeKey(): Promise<string>;
  chain: VaultChainOps;
  balances: VaultBalances;
  views: AccountViews;
  /** Each paused vault's breach policy, enforced; closes run through it too. */
  enforcement: Enforcement;
  /** The account mode checks (read every few minutes; a vault that leaves the standard modes pauses). */
  modes: AccountModes;
  /** The dead-man's switch, when --dead-man-seconds is set. */
  deadMan?: DeadMan;
  /** The vaults whose oracle work is this daemon's (all of them, alone on the database). */
  share: VaultShare;
  /** Runs `fn` while no other daemon on the database runs one under the same name (the store's lock). */
  exclusive<T>(name: string, fn: () => Promise<T>): Promise<T>;
  clock: () => number;
  log: Logger;
}

/** What one oracle cycle did: vaults not closed, those due a reading (before their deadline), those read. */
export interface PollResult {
  active: number;
  due: number;
  read: number;
}

const nowS = (clock: () => number) => Math.floor(clock() / 1000);

/** A closed vault's row, and the positions its close left open because the exchange refused dust. */
interface Closed {
  row: VaultRow;
  dust: DustPosition[];
}
const MAX_CACHED_LISTS = 1_000;

export function createVaultService(deps: VaultServiceDeps) {
  const { db, chain, balances, enforcement, clock, log } = deps;
  const settlement = createVaultSettlement({ db, chain, clock, log });
  // Each party's list, kept until the database changes: a dashboard polls it, and between oracle
  // cycles nothing in it moves. The same array is returned while valid, so callers may memoize on it.
  const lists = new Map<string, { changes: string; items: readonly VaultSummary[] }>();
  /** Balance writes in progress, per vault (update()). */
  const writing = new Map<string, Promise<void>>();
  /** Closes in progress, per vault: a second close waits for the first and is told the vault is closed. */
  const closing = new Map<string, Promise<Closed>>();

  /**
   * One write of a vault's balance at a time (the cycle's, an early write's, a trade gate's): a cycle
   * that returns has seen the outcome of any write of its vaults that began before it. The turn is
   * taken at the call, before any await, so a write that has not yet read its row is still waited for.
   */
  function inTurn<T>(addresses: string[], fn: (waited: Set<string>) => Promise<T>): Promise<T> {
    const waited = new Set(addresses.filter((a) => writing.has(a)));
    const done = Promise.all([...waited].map((a) => writing.get(a))).then(() => fn(waited));
    const mark = done.then(() => undefined, () => undefined);
    for (const a of addresses) writing.set(a, mark);
    void mark.then(() => {
      for (const a of addresses) if (writing.get(a) === mark) writing.delete(a);
    });
    return done;
  }

  /**
   * Reads and writes; a vault the update paused is enforced before this returns, and before a failed
   * batch is reported.
   * `fenced`: the oracle's own work, written only while this daemon holds the vault's lease.
   */
  async function update(vaults: VaultRow[], opts: { fenced?: boolean } = {}): Promise<number> {
    const asked = clock();
    const r = await inTurn(vaults.map((v) => v.address), async (waited) => {
      // A row read before a write that went first is stale: its last reading is older than the
      // chain's, and a reading stamped from it could repeat that second and be discarded.
      const rows = waited.size === 0 ? vaults : await Promise.all(vaults.map(async (v) => (waited.has(v.address) ? (await vaultsRepo.findVault(db, v.address)) ?? v : v)));
      // A vault that the write it waited for has just written, from an account read after this
      // update was asked for (a takeover's, an early write's, another cycle's), has this interval's
      // reading: another adds nothing but spent budget. A write whose read came before (it began
      // earlier) may predate a price move: read again.
      const fresh = (row: VaultRow, i: number) => waited.has(row.address) && (row.last_observed_at ?? 0) > (vaults[i]!.last_observed_at ?? 0)
        && (balances.snapshot(row.address)?.at ?? -Infinity) >= asked;
      const due = rows.filter((row, i) => !fresh(row, i));
      const r = await balances.update(due, { fence: opts.fenced ? deps.share.fence : undefined, once: opts.fenced });
      return { ...r, read: r.read + (rows.length - due.length) };
    });
    return settle(r);
  }

  /**
   * The chain's result is where this daemon sees a pause its own writes made: each such vault's
   * enforcement runs now, after the turn is over.
   */
  async function settle(r: UpdateResult): Promise<number> {
    for (const v of r.paused) await enforcement.trigger(v.address);
    if (r.failures.length > 0) throw r.failures[0];
    return r.read;
  }

  /**
   * One vault, now: a fresh balance on-chain (before unpause and close, after a pre-trade breach).
   * `enforce: false` leaves a pause this reading makes to the enforcement run it starts, without
   * waiting for it: the close calls it holding that run's lock, and waiting would never end.
   * `first`: a new vault's first reading, which its lease holder may be taking at the same moment.
   */
  async function refresh(address: string, opts: { fenced?: boolean; enforce?: boolean; first?: boolean } = {}): Promise<VaultRow> {
    const r = await inTurn([address], async () => {
      const v = await vaultsRepo.findVault(db, address);
      if (!v) throw new AppError("NOT_FOUND", `no vault ${address}`);
      return balances.update([v], { fresh: true, fence: opts.fenced ? deps.share.fence : undefined, once: opts.fenced || opts.first });
    });
    if (opts.enforce === false) {
      for (const v of r.paused) void enforcement.trigger(v.address);
      if (r.failures.length > 0) throw r.failures[0];
    } else await settle(r);
    return (await vaultsRepo.findVault(db, address))!;
  }

  /**
   * Cancels orders, closes positions (dust the exchange refuses stays, valued at mark in the final
   * balance), writes the final balance, closes on-chain, records the closing fills. No enforcement
   * run of the vault goes on meanwhile.
   */
  function windDown(v: VaultRow, by: string): Promise<Closed> {
    return enforcement.exclusive(v.address, async () => {
      const flat = await enforcement.flattenForClose(v);
      if (flat.closed.length > 0 || flat.dust.length > 0) {
        await balances.recordEvent({
          vault: v.address, type: "Flattened",
          data: { reason: "close", canceledOrders: flat.canceled, positions: flat.closed, dust: flat.dust, attempts: 1 },
        });
      }
      await refresh(v.address, { enforce: false });
      await chain.closeVault(v.address);
      const closed = (await vaultsRepo.findVault(db, v.address))!;
      await balances.recordFills(closed).catch((err) => log.warn({ vault: v.address, err: (err as Error).message }, "cannot read the closing fills"));
      log.info({ vault: v.address, by, finalBalance: closed.final_balance, profit: closed.profit, dust: flat.dust.length }, "vault closed");
      return { row: closed, dust: flat.dust };
    });
  }

  function closeOnce(v: VaultRow, by: string): Promise<Closed> {
    const running = closing.get(v.address);
    if (running) {
      return running.then(
        () => Promise.reject(new AppError("VAULT_CLOSED", "the vault was closed by another request meanwhile")),
        (err) => Promise.reject(err),
      );
    }
    // Across daemons sharing the database too: a close that waited for another daemon's finds the
    // vault closed (the store's lock by name), and answers as a second close here does.
    const p = deps.exclusive(`close:${v.address}`, async () => {
      const now = await vaultsRepo.findVault(db, v.address);
      if (now?.closed) throw new AppError("VAULT_CLOSED", "the vault was closed by another request meanwhile");
      return windDown(now ?? v, by);
    }).finally(() => closing.delete(v.address));
    closing.set(v.address, p);
    return p;
  }

  return {
    refresh,

    /**
     * Vaults this daemon just took over from one that stopped: read and written at once, in one
     * batched transaction (one per vault would queue them all behind one sender), then their breach
     * policy checked.
     */
    async takeOver(addresses: string[]): Promise<void> {
      // The turn is taken now, before the rows are read: the cycle whose lease round took these
      // vaults over reads them next, and must find the takeover ahead of it (and its reading fresh),
      // not read them first at background priority, behind a spent budget.
      let rows: VaultRow[] = [];
      const r = await inTurn(addresses, async () => {
        rows = (await Promise.all(addresses.map((a) => vaultsRepo.findVault(db, a)))).filter((v): v is VaultRow => v !== undefined && !v.closed);
        return balances.update(rows, { fresh: true, fence: deps.share.fence, once: true });
      });
      try {
        await settle(r);
      } finally {
        // Those this reading paused were enforced by settle; the others may have been paused before.
        const enforced = new Set(r.paused.map((v) => v.address));
        for (const v of rows) if (!enforced.has(v.address)) void enforcement.trigger(v.address);
      }
    },

    /** The work of one oracle cycle: close expired vaults, read and write the live ones, record fills. */
    async poll(): Promise<PollResult> {
      await deps.share.refresh();
      const vaults = (await vaultsRepo.activeVaults(db)).filter((v) => deps.share.holds(v.address));
      const now = nowS(clock);
      for (const v of vaults.filter((x) => x.deal_deadline < now)) {
        await closeOnce(v, "oracle").catch((err) => {
          if (!(isAppError(err) && err.code === "VAULT_CLOSED")) log.error({ vault: v.address, err: (err as Error).message }, "cannot close expired vault; will retry");
        });
      }
      const live = vaults.filter((x) => x.deal_deadline >= now);
      // Armed first: a cycle whose reads fail must still keep the switch from firing on a live daemon.
      await deps.deadMan?.renew(live);
      const read = await update(live, { fenced: true });
      // A vault an early write between polls paused a moment ago has its run going: the cycle waits
      // for it as for a pause of its own (one pass; retries keep their timers). Only here: a run
      // itself refreshes its vault through update(), and must not wait for itself.
      for (const v of live) await enforcement.current(v.address);
      // Not awaited: a paused vault's enforcement keeps its own pace (retries within seconds) and must
      // not hold the cycle up while the exchange refuses it.
      void enforcement.cycle().catch((err) => log.error({ err }, "enforcement cycle failed"));
      // A vault the operator's pause just paused is enforced within the cycle, as a breach's is.
      for (const address of await deps.modes.checkDue(live)) await enforcement.trigger(address);
      for (const v of live) {
        if (!balances.fillsDue(v.address)) continue;
        await balances.recordFills(v).catch((err) => log.warn({ vault: v.address, err: (err as Error).message }, "cannot read fills"));
      }
      return { active: vaults.length, due: live.length, read };
    },

    /** Vaults where `user` is the investor or the trader, newest first. */
    async list(user: string): Promise<readonly VaultSummary[]> {
      const changes = await deps.changeKey();
      const hit = lists.get(user);
      if (hit && hit.changes === changes) return hit.items;
      const items = Object.freeze((await vaultsRepo.vaultSummariesOfParty(db, user)).map(rowToSummary));
      if (lists.size >= MAX_CACHED_LISTS) lists.clear();
      lists.set(user, { changes, items });
      return items;
    },

    /**
     * One vault with its latest trades, open positions and how its breach policy is enforced. When the
     * exchange cannot be read, `positions` is empty and `positionsAvailable` false: never "no positions".
     */
    async detail(user: string, address: string) {
      const { vault: v } = await vaultFor(db, user, address);
      const trades = (await tradesRepo.tradePage(db, v.address, { limit: 20, offset: 0 })).rows.map(rowToTrade);
      const positions: PositionView[] | undefined = await deps.views.positions({ account: v.exchange_account }, user).catch(() => undefined);
      return { ...rowToDetail(v), trades, positions: positions ?? [], positionsAvailable: positions !== undefined, enforcement: enforcement.view(v) };
    },

    async trades(user: string, address: string, page: { limit: number; offset: number; startMs?: number; endMs?: number }) {
      const v = (await vaultFor(db, user, address)).vault;
      const r = await tradesRepo.tradePage(db, v.address, page);
      return { trades: r.rows.map(rowToTrade), total: r.total };
    },

    async events(user: string, address: string, page: { limit: number; offset: number; startS?: number; endS?: number }) {
      const v = (await vaultFor(db, user, address)).vault;
      const r = await vaultsRepo.vaultEventsPage(db, v.address, page.limit, page.offset, page);
      return { events: r.rows.map(rowToEvent), total: r.total };
    },

    /** Event rows of every vault `user` is a party to with id > afterId, oldest first (an SSE backlog). */
    async eventsAfter(user: string, afterId: number, limit: number) {
      const mine = (await vaultsRepo.vaultsOfParty(db, user)).map((v) => v.address);
      return vaultsRepo.eventsAfter(db, mine, afterId, limit);
    },

    async close(user: string, address: string) {
      const { vault: v } = await vaultFor(db, user, address);
      assertOpen(v);
      const closed = await closeOnce(v, user);
      return rowToCloseResult(closed.row, closed.dust, await settlement.standing(closed.row));
    },

    async unpause(user: string, address: string) {
      const { vault: v } = await vaultWithRole(db, user, address, ["trader"], "unpause it");
      assertOpen(v);
      if (!v.paused) throw new AppError("CONFLICT", "the vault is not paused");
      await deps.modes.assertUnpausable(v);
      const fresh = await refresh(v.address);
      if (fresh.paused) {
        await chain.unpauseVault(v.address).catch((err) => {
          throw isAppError(err) && err.code === "NOT_RECOVERED" ? notRecovered(fresh, clock()) : err;
        });
      }
      // The run finds the vault trading again and forgets its enforcement.
      void enforcement.trigger(v.address);
      return rowToSummary((await vaultsRepo.findVault(db, v.address))!);
    },

    withdraw: settlement.withdraw,
    fundPrepare: settlement.fundPrepare,
    fund: settlement.fund,
  };
}

export type VaultService = ReturnType<typeof createVaultService>;
