// Protective triggers hold until their position is closed (docs/design.md "Stops that hold"). The
// venue fires a market stop-loss or take-profit as an order bounded in price; a gap past that bound,
// a rejection or an outage leaves it fired, unfilled and gone, and the position open. The keeper
// reconciles every stop the daemon placed, as enforcement does a breach policy: each oracle interval,
// at start, and soon after the mark crosses a trigger, it compares each stop with the exchange and
// acts until they agree. A fired stop is closed at market (StopFailed, then StopFilled with the
// price), retried with backoff; a stop whose position went flat is canceled. Vault stops are told as
// vault events, own accounts' as the owner's notices; both reach webhooks. Every daemon sharing a
// store keeps every stop: each change is a conditional update, so an event is recorded once and a
// close is sent by the one daemon that claimed it.
import type { Logger } from "pino";
import type { Executor, UnitOfWork } from "../db/store.js";
import type { StopRow } from "../db/schema.js";
import type { VaultEventRow } from "../db/schema-chain.js";
import * as stopsRepo from "../db/stops-repo.js";
import { asAppError } from "../errors.js";
import { compareDecimal } from "../lib/decimal.js";
import type { Cloid, ExchangeAdapter, ReadOptions } from "../exchange/types.js";
import type { UserNotices } from "../notices/user-notices.js";
import type { Reconciler } from "../trading/reconciler.js";
import { newCloid, type TradingService } from "../trading/trading-service.js";
import type { Target } from "../trading/target.js";
import { afterClose, crossed, protectedPosition, whileOpen, type AccountView } from "./stop-rules.js";
import { appendDaemonEvent } from "./vault-events.js";
import { backoffMs } from "../lib/backoff.js";

export interface StopKeeperDeps {
  db: Executor;
  work: UnitOfWork;
  exchange: ExchangeAdapter;
  trading: TradingService;
  reconciler: Reconciler;
  notices: UserNotices;
  /** Publishes stored vault events to live streams (after commit). */
  publish(rows: VaultEventRow[]): void;
  clock: () => number;
  log: Logger;
}

/** Stops compared in one pass at most, oldest first. */
const STOPS_PER_PASS = 500;
/** How long a close may take to land (expiresAfter): one in doubt is settled that much sooner. */
const CLOSE_TTL_MS = 5_000;
/** A try's claim on a fired stop: another daemon leaves it alone this long. */
const LEASE_MS = 15_000;
/** After the mark crosses a trigger, the venue's own fill gets this long before the keeper looks. */
const AFTER_CROSSING_MS = 1_000;
/** A stop the exchange has never heard of (its order was never placed) is dropped after this long. */
const UNKNOWN_AFTER_MS = 120_000;
/** How often the watched triggers are re-read from the store (a cheap indexed query). */
const REINDEX_MS = 2_000;
const retryInMs = (attempts: number) => backoffMs(attempts, 1_000, 30_000);

const targetOf = (s: StopRow): Target => ({ account: s.account, ...(s.vault_address ? { vaultAddress: s.vault_address } : {}) });

export function createStopKeeper(deps: StopKeeperDeps) {
  const { db, work, exchange, trading, reconciler, clock, log } = deps;
  /** Armed market stops by symbol, for the price stream's crossings. */
  let watched = new Map<string, StopRow[]>();
  const soon = new Map<string, { timer: NodeJS.Timeout; due: number }>();
  /** Stops already woken for while the mark stays past them: one look per crossing, not one per tick. */
  const woken = new Set<string>();
  /** When `watched` was last read from the store, and the read under way. */
  let indexedAt = 0;
  let indexing: Promise<unknown> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;

  /** Records StopFailed or StopFilled, in `trx`: a vault event for a vault's stop, the owner's notice for an own account's. */
  async function tell(trx: Executor, s: StopRow, type: "StopFailed" | "StopFilled", data: Record<string, unknown>): Promise<VaultEventRow | undefined> {
    if (s.vault_address) return appendDaemonEvent(trx, { vault: s.vault_address, type, time: Math.floor(clock() / 1000), data }, clock());
    const base = { ...data, account: s.account } as never;
    await deps.notices.notifyParty(trx, { user: s.user, type, key: `${type}:${s.cloid}`, data: base });
    return undefined;
  }

  /** Moves the stop and records its event in one commit: only the writer that moved it records. */
  async function moveAndTell(s: StopRow, change: Parameters<typeof stopsRepo.moveStop>[3], event?: ["StopFailed" | "StopFilled", Record<string, unknown>]) {
    const row = await work.write(async (trx) => {
      if (!(await stopsRepo.moveStop(trx, s.cloid, s.state, change, clock()))) return undefined;
      return event ? tell(trx, s, event[0], event[1]) : undefined;
    });
    if (row) deps.publish([row]);
    // The daemon's close left the position flat: its other stops (an entry's take-profit) go at the next look, now.
    if (event?.[0] === "StopFilled") wake(s.account, 0);
  }

  const stopFields = (s: StopRow) => ({ symbol: s.symbol, kind: s.kind, triggerPrice: s.trigger_price });

  /** A fired stop: settle its close in flight, or send the next one once its backoff has passed. */
  async function closeFired(s: StopRow, view: AccountView): Promise<void> {
    if (s.close_cloid) {
      const row = await reconciler.settle(s.close_cloid);
      if (row && (row.status === "pending" || row.status === "unknown")) return;
      if (row?.status === "filled" && row.oid !== null) {
        const price = row.average_price ?? row.price;
        return moveAndTell(s, { state: "done", outcome: "closed" }, ["StopFilled", { ...stopFields(s), size: row.filled_size ?? row.size, price, orderId: row.oid, attempts: s.attempts }]);
      }
    }
    const position = protectedPosition(s, view.positions);
    if (!position) {
      log.info({ account: s.account, symbol: s.symbol }, "a fired stop's position was closed by other means; the stop ends");
      return moveAndTell(s, { state: "done", outcome: "flat", close_cloid: null });
    }
    if (clock() < s.next_try_at) return;
    const cloid = newCloid();
    const attempts = s.attempts + 1;
    const claimed = await stopsRepo.moveStop(db, s.cloid, "fired", { attempts, close_cloid: cloid, next_try_at: clock() + LEASE_MS }, clock(), s.next_try_at);
    if (!claimed) return;
    const size = minSize(s.size, position.size);
    try {
      const r = await trading.closeWithCloid(s.user, targetOf(s), position, size, cloid as Cloid, CLOSE_TTL_MS);
      if (r.filled) {
        const mine = { ...s, state: "fired" as const, attempts };
        return moveAndTell(mine, { state: "done", outcome: "closed" }, ["StopFilled", { ...stopFields(s), size: r.filled.size, price: r.filled.averagePrice, orderId: r.orderId, attempts }]);
      }
      await stopsRepo.moveStop(db, s.cloid, "fired", { close_cloid: null, next_try_at: clock() + retryInMs(attempts) }, clock());
    } catch (err) {
      const e = asAppError(err);
      // In doubt: the cloid stays and is settled before the next try; otherwise the next try is new.
      const inDoubt = e.code === "EXCHANGE_UNAVAILABLE";
      log.warn({ account: s.account, symbol: s.symbol, attempts, err: e.message }, "closing a fired stop's position failed; retrying");
      await stopsRepo.moveStop(db, s.cloid, "fired", { close_cloid: inDoubt ? cloid : null, next_try_at: clock() + retryInMs(attempts), reason: e.message }, clock());
    }
  }

  /** An armed stop against the account as the exchange shows it. */
  async function checkArmed(s: StopRow, view: AccountView, opts: ReadOptions): Promise<void> {
    const step = whileOpen(s, view);
    if (step.kind === "wait") return;
    if (step.kind === "note") return void (await stopsRepo.moveStop(db, s.cloid, "armed", { oid: step.oid, position_seen: step.positionSeen ? 1 : 0 }, clock()));
    if (step.kind === "cancel") {
      const { errors } = await trading.cancelOrders(targetOf(s), [step.order]);
      if (errors.length > 0) throw errors[0];
      return void (await stopsRepo.moveStop(db, s.cloid, "armed", { state: "done", outcome: "flat" }, clock()));
    }
    const lookup = await exchange.orderStatus(s.account, s.oid ?? (s.cloid as Cloid), opts);
    const ending = afterClose(s, lookup, view);
    if (ending.kind === "unknown") {
      if (!lookup.found && clock() - s.created_at > UNKNOWN_AFTER_MS) await stopsRepo.moveStop(db, s.cloid, "armed", { state: "done", outcome: "unknown" }, clock());
      return;
    }
    if (ending.kind === "done") return void (await stopsRepo.moveStop(db, s.cloid, "armed", { state: "done", outcome: ending.outcome }, clock()));
    log.warn({ account: s.account, symbol: s.symbol, reason: ending.reason }, "a stop fired without filling; closing its position at market");
    await moveAndTell(s, { state: "fired", reason: ending.reason }, ["StopFailed", {
      ...stopFields(s), size: ending.size, orderId: lookup.found ? lookup.order.oid : s.oid, reason: ending.reason,
    }]);
    const fired = await stopsRepo.findStop(db, s.cloid);
    if (fired?.state === "fired") await closeFired(fired, view);
  }

  /** One account's live stops against one read of its orders, positions and the mids. */
  async function checkAccount(account: string, list: StopRow[]): Promise<void> {
    const opts: ReadOptions = { priority: list.some((s) => s.state === "fired") ? "trading" : "background" };
    // The orders before the positions: an entry's child seen active had its fill in the positions read after.
    const [open, mids] = await Promise.all([exchange.openOrders(account, opts), exchange.mids()]);
    const state = await exchange.accountState(account, opts);
    const view: AccountView = { open, positions: state.positions, mids };
    for (const s of list) {
      try {
        if (s.state === "fired") await closeFired(s, view);
        else await checkArmed(s, view, opts);
      } catch (err) {
        log.warn({ account, symbol: s.symbol, err: (err as Error).message }, "cannot check a stop yet; the next pass tries again");
      }
    }
    // A fired stop is not left to the next interval: its close (or the settling of one in doubt) is tried again soon.
    const fired = await stopsRepo.firedOf(db, account);
    if (fired.length > 0) wake(account, Math.max(1_000, Math.min(...fired.map((s) => s.next_try_at)) - clock()));
  }

  /**
   * Live stops by account. Every daemon keeps every stop, a vault's too: a stop must not wait for a
   * lease round to be watched, and the conditional updates keep its event single and its close claimed.
   */
  async function liveByAccount(only?: string): Promise<Map<string, StopRow[]>> {
    const byAccount = new Map<string, StopRow[]>();
    const next = new Map<string, StopRow[]>();
    for (const s of await stopsRepo.liveStops(db, STOPS_PER_PASS)) {
      if (s.state === "armed" && s.market === 1) next.set(s.symbol, [...(next.get(s.symbol) ?? []), s]);
      if (only !== undefined && s.account !== only) continue;
      byAccount.set(s.account, [...(byAccount.get(s.account) ?? []), s]);
    }
    watched = next;
    indexedAt = clock();
    return byAccount;
  }

  /** The watched triggers, re-read from the store every few seconds: a stop placed since the last pass is watched too. */
  function reindex(): Promise<unknown> {
    if (indexing || clock() - indexedAt < REINDEX_MS) return indexing ?? Promise.resolve();
    indexing = liveByAccount("").catch((err) => log.warn({ err: (err as Error).message }, "cannot read the stops to watch")).finally(() => (indexing = undefined));
    return indexing;
  }

  function onMids(mids: Record<string, string>): void {
    for (const [symbol, list] of watched) {
      const mid = mids[symbol];
      for (const s of list) {
        if (!crossed(s, mid)) woken.delete(s.cloid);
        else if (!woken.has(s.cloid)) {
          woken.add(s.cloid);
          wake(s.account, AFTER_CROSSING_MS);
        }
      }
    }
  }

  async function pass(only?: string): Promise<void> {
    for (const [account, list] of await liveByAccount(only)) {
      await checkAccount(account, list).catch((err) =>
        log.warn({ account, err: (err as Error).message }, "cannot compare the account's stops with the exchange yet; the next pass tries again"));
    }
  }

  /** One run at a time; a wake during a run makes another after it. */
  function run(only?: string): Promise<void> {
    if (stopped) return Promise.resolve();
    const next = (running ?? Promise.resolve()).then(() => pass(only));
    const current = next.catch((err) => log.error({ err }, "stop keeper pass failed")).finally(() => {
      if (running === current) running = undefined;
    });
    running = current;
    return current;
  }

  /** Checks the account's stops in `ms` (the earliest asked for wins). */
  function wake(account: string, ms: number): void {
    const due = clock() + ms;
    const pending = soon.get(account);
    if (stopped || (pending && pending.due <= due)) return;
    if (pending) clearTimeout(pending.timer);
    const timer = setTimeout(() => {
      soon.delete(account);
      void run(account);
    }, ms);
    timer.unref();
    soon.set(account, { timer, due });
  }

  return {
    pass: () => run(),
    /** A stop was just placed: the price stream watches it from the next tick, not from the next re-read. */
    placed: (): void => void (indexedAt = 0),
    /** Soon after the daemon changed an account's positions (a close): its flat positions' stops go. */
    nudge: (account: string) => wake(account, 0),
    /** The price stream: an account whose armed stop the mark has crossed is checked shortly after. */
    onMids(mids: Record<string, string>): void {
      void reindex().then(() => onMids(mids));
    },
    /** A pass now (a restart resumes fired stops), then one every `everyMs`. */
    start(everyMs: number): void {
      void run();
      timer = setInterval(() => void run(), everyMs);
      timer.unref();
    },
    async stop(): Promise<void> {
      stopped = true;
      if (timer) clearInterval(timer);
      for (const t of soon.values()) clearTimeout(t.timer);
      soon.clear();
      await running;
    },
  };
}

function minSize(stopSize: string, positionSize: string): string {
  const held = positionSize.replace(/^-/, "");
  return compareDecimal(stopSize, held) <= 0 ? stopSize : held;
}

export type StopKeeper = ReturnType<typeof createStopKeeper>;
