// The oracle loop: every interval it reads each active vault's balance (paused ones included, so
// recovery is seen), writes them on-chain in batches, and reacts: a vault the batch paused gets its
// resting orders canceled; an expired vault is closed; new fills become vault trades. Exchange and
// chain errors are logged and retried with backoff; they never stop the loop.
import type { Logger } from "pino";
import type { Store } from "../db/database.js";
import * as vaultsRepo from "../db/vaults-repo.js";
import * as tradesRepo from "../db/vault-trades-repo.js";
import type { VaultEventRow, VaultRow } from "../db/schema-chain.js";
import type { ExchangeAdapter } from "../exchange/types.js";
import type { BalanceReading, VaultChainOps } from "../vaults/vault-chain.js";
import { createBalanceReader } from "./balance-reader.js";

export interface OracleStatus {
  lastCycleAt: number | null;
  lastResult: "ok" | "error" | null;
  lastError: string | null;
  activeVaults: number;
  durationMs: number | null;
}

/**
 * Exchange weight one vault costs per cycle on average: clearinghouseState (2) every cycle; the
 * ledger (20) and fills (20) only every few minutes or when something happened (see
 * balance-reader.ts and FILLS_EVERY_MS), counted here as one extra read in ten cycles.
 */
export const WEIGHT_PER_VAULT = 6;
/** Fills of a vault nobody traded are fetched this often (at the next cycle when it traded or its positions moved). */
export const FILLS_EVERY_MS = 5 * 60_000;
/** What the oracle may spend per minute: Hyperliquid's 1200 minus a reserve for trading. */
export const ORACLE_WEIGHT_PER_MINUTE = 1_000;

/** The most vaults one daemon can read every interval within Hyperliquid's request budget. */
export function oracleCapacity(intervalMs: number): number {
  return Math.floor((ORACLE_WEIGHT_PER_MINUTE * intervalMs) / 60_000 / WEIGHT_PER_VAULT);
}

export interface OracleDeps {
  store: Store;
  exchange: ExchangeAdapter;
  chain: VaultChainOps;
  clock: () => number;
  log: Logger;
  intervalMs: number;
  /** Publishes stored events to live streams (after commit). */
  publish(rows: VaultEventRow[]): void;
  /** Cancels a paused vault's resting orders; returns how many. */
  cancelOrders(vault: VaultRow): Promise<number>;
  /** Closes a vault whose deadline has passed. */
  closeExpired(vault: VaultRow): Promise<void>;
  /** Background upkeep riding on the cycle (proposal expiry and relays). */
  upkeep?(): Promise<void>;
}

export function createOracle(deps: OracleDeps) {
  const { store, exchange, chain, clock, log } = deps;
  const { db, sync } = store;
  const status: OracleStatus = { lastCycleAt: null, lastResult: null, lastError: null, activeVaults: 0, durationMs: null };
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;
  let failures = 0;
  /** Vaults with trading, or changed positions, since their fills were last read. */
  const active = new Set<string>();
  const reader = createBalanceReader(exchange, clock, { onPositionsChanged: (address) => active.add(address) });
  const fillsReadAt = new Map<string, number>();

  const daemonEvent = (vault: VaultRow, type: string, data: Record<string, unknown>) => {
    const row = store.immediate(() => vaultsRepo.appendDaemonEvent(db, sync, { vault: vault.address, type, time: Math.floor(clock() / 1000), data }, clock()));
    if (row) deps.publish([row]);
  };

  /** Reads, writes and reacts for the given vaults; per-vault read failures skip only that vault. */
  async function update(vaults: VaultRow[], fresh = false): Promise<string[]> {
    const readings: BalanceReading[] = [];
    for (const v of vaults) {
      try {
        const r = await reader.read(v, fresh ? { fresh: true, priority: "trading" } : { priority: "background" });
        if (v.last_observed_at === null && r.balance !== BigInt(v.initial_balance)) {
          daemonEvent(v, "BalanceMismatch", { expected: v.initial_balance, observed: r.balance.toString() });
        }
        readings.push(r);
      } catch (err) {
        log.warn({ vault: v.address, err: (err as Error).message }, "cannot read vault balance");
      }
    }
    if (readings.length === 0) return [];
    const { paused, failures } = await chain.updateBalances(readings);
    for (const address of paused) {
      const v = vaults.find((x) => x.address === address)!;
      try {
        const canceled = await deps.cancelOrders(v);
        daemonEvent(v, "OrdersCanceled", { reason: "paused", count: canceled });
      } catch (err) {
        log.error({ vault: address, err: (err as Error).message }, "paused vault: cannot cancel its orders");
      }
    }
    // After the cancels: the cycle then fails and is retried with the vaults of the failed batches.
    if (failures.length > 0) throw failures[0];
    return paused;
  }

  async function ingestFills(v: VaultRow): Promise<void> {
    active.delete(v.address);
    fillsReadAt.set(v.address, clock());
    const since = Math.max(v.created_at * 1000, tradesRepo.lastSeq(db, sync, v.address).timeMs);
    const fills = (await exchange.fills(v.exchange_account, since, { priority: "background" })).filter((f) => f.time >= v.created_at * 1000);
    if (fills.length === 0) return;
    const events = store.immediate(() => {
      const added = tradesRepo.appendFills(db, sync, v.address, v.exchange_account, fills.map((f) => ({
        tid: f.tid, oid: f.oid, symbol: f.symbol, side: f.side, size: f.size, price: f.price, pnl: f.closedPnl, fee: f.fee, timeMs: f.time,
      })));
      return added.flatMap((t) => vaultsRepo.appendDaemonEvent(db, sync, {
        vault: v.address, type: "Fill", time: Math.floor(t.time_ms / 1000),
        data: { tradeId: String(t.id), orderId: t.oid, symbol: t.symbol, side: t.side, size: t.size, price: t.price, pnl: t.pnl, fee: t.fee },
      }, clock()) ?? []);
    });
    deps.publish(events);
  }

  async function cycle(): Promise<void> {
    const started = clock();
    const vaults = await vaultsRepo.activeVaults(db);
    if (exchange.kind !== "sim" && vaults.length > oracleCapacity(deps.intervalMs) && status.activeVaults <= oracleCapacity(deps.intervalMs)) {
      log.warn(
        { activeVaults: vaults.length, capacity: oracleCapacity(deps.intervalMs), intervalSeconds: deps.intervalMs / 1000 },
        "more active vaults than the exchange's request budget lets the oracle read each interval; cycles will run late (raise --oracle-interval or run another daemon)",
      );
    }
    status.activeVaults = vaults.length;
    const nowS = Math.floor(clock() / 1000);
    for (const v of vaults.filter((x) => x.deal_deadline < nowS)) {
      try {
        await deps.closeExpired(v);
      } catch (err) {
        log.error({ vault: v.address, err: (err as Error).message }, "cannot close expired vault; will retry");
      }
    }
    const live = vaults.filter((x) => x.deal_deadline >= nowS);
    await update(live);
    for (const v of live) {
      if (!active.has(v.address) && clock() - (fillsReadAt.get(v.address) ?? 0) < FILLS_EVERY_MS) continue;
      await ingestFills(v).catch((err) => log.warn({ vault: v.address, err: (err as Error).message }, "cannot read fills"));
    }
    await deps.upkeep?.();
    status.durationMs = clock() - started;
  }

  function schedule(delayMs: number) {
    if (stopped) return;
    timer = setTimeout(() => {
      running = cycle()
        .then(() => {
          failures = 0;
          Object.assign(status, { lastCycleAt: clock(), lastResult: "ok", lastError: null });
        })
        .catch((err) => {
          failures += 1;
          Object.assign(status, { lastCycleAt: clock(), lastResult: "error", lastError: (err as Error).message });
          log.error({ err: (err as Error).message, failures }, "oracle cycle failed; retrying with backoff");
        })
        .finally(() => {
          running = undefined;
          const backoff = failures === 0 ? deps.intervalMs : Math.min(deps.intervalMs, 1_000 * 2 ** Math.min(failures, 6));
          schedule(backoff);
        });
    }, delayMs);
    timer.unref();
  }

  return {
    status: () => ({ ...status }),
    cycle,
    /** One vault, now: a fresh balance on-chain (before unpause and close, after a pre-trade breach). */
    async refresh(address: string): Promise<VaultRow> {
      const v = await vaultsRepo.findVault(db, address);
      if (!v) throw new Error(`unknown vault ${address}`);
      await update([v], true);
      return (await vaultsRepo.findVault(db, address))!;
    },
    ingestFills,
    reader,
    /** The trade path marks a vault it sends orders for: its fills are read at the next cycle. */
    markActive: (address: string) => void active.add(address),
    start(firstDelayMs = 0) {
      stopped = false;
      schedule(firstDelayMs);
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}

export type Oracle = ReturnType<typeof createOracle>;
