// Risk between oracle polls: at each price update from the exchange's stream, every active
// vault is revalued from its last polled account state; one whose estimated drawdown reaches a limit,
// or comes within the breach margin of it, is read fresh and written on-chain at once (the vault
// service's refresh: the contract decides, and a pause cancels the vault's orders as after a poll).
// A vault is written early at most once per `minGapMs`, and those reads spend the oracle's budget.
import type { Logger } from "pino";
import type { Executor } from "../db/store.js";
import type { VaultRow } from "../db/schema-chain.js";
import * as vaultsRepo from "../db/vaults-repo.js";
import type { VaultShare } from "./vault-share.js";
import type { VaultBalances } from "./vault-balances.js";
import { assess, netBalance } from "./vault-math.js";
import { revalue } from "./revaluation.js";
import { baseUnitsToUsdc } from "./units.js";

export interface VaultWatchDeps {
  db: Executor;
  /** The store's change key: the active-vault list is re-read only when it moves. */
  changeKey(): Promise<string>;
  balances: VaultBalances;
  /** Fresh read, on-chain write (fenced by the vault's lease), reaction to a pause (the vault service's refresh). */
  refresh(address: string, opts: { fenced: true }): Promise<VaultRow>;
  /** Only the vaults this daemon holds are watched. */
  share: VaultShare;
  clock: () => number;
  log: Logger;
  /** How close to a limit (basis points of drawdown) counts as reaching it. */
  marginBps: number;
  /** Least time between two early writes of one vault. */
  minGapMs?: number;
}

export interface VaultWatchStatus {
  /** Early writes made since start. */
  earlyWrites: number;
  /** Unix ms of the last price update evaluated; null before the first. */
  lastEvaluatedAt: number | null;
}

export function createVaultWatch(deps: VaultWatchDeps) {
  const { balances, clock, log } = deps;
  const minGapMs = deps.minGapMs ?? 3_000;
  const mids: Record<string, string> = {};
  /** Each vault's last early write, and whether its estimate was a breach (not just within the margin). */
  const lastEarly = new Map<string, { at: number; breach: boolean }>();
  let active: { changes: string; rows: VaultRow[] } | undefined;
  let running: Promise<void> | undefined;
  let again = false;
  const status: VaultWatchStatus = { earlyWrites: 0, lastEvaluatedAt: null };

  async function activeVaults(): Promise<VaultRow[]> {
    const changes = await deps.changeKey();
    if (!active || active.changes !== changes) active = { changes, rows: await vaultsRepo.activeVaults(deps.db) };
    return active.rows.filter((v) => deps.share.holds(v.address));
  }

  /** Whether the vault's estimated balance now is at a limit ("breach") or within the margin of it ("near"). */
  function nearLimit(v: VaultRow): "breach" | "near" | undefined {
    const snap = balances.snapshot(v.address);
    if (!snap || v.last_observed_at === null) return undefined;
    const estimate = netBalance(baseUnitsToUsdc(revalue(snap.state, mids)), snap.external);
    const risk = assess(
      { peak: BigInt(v.peak_balance), dayStart: BigInt(v.day_start_balance), day: Math.floor(v.last_observed_at / 86_400) },
      estimate, Math.floor(clock() / 1000), { maxBps: v.max_drawdown_bps, dailyBps: v.daily_drawdown_bps },
    );
    if (risk.breach) return "breach";
    const near = risk.drawdownBps >= v.max_drawdown_bps - deps.marginBps || risk.dailyDrawdownBps >= v.daily_drawdown_bps - deps.marginBps;
    return near ? "near" : undefined;
  }

  /**
   * At most one write per vault per gap, except that an estimated breach is not held back by a
   * margin write just before it (the price usually passes the margin a moment before the limit).
   */
  function due(address: string, level: "breach" | "near"): boolean {
    const last = lastEarly.get(address);
    if (!last || clock() - last.at >= minGapMs) return true;
    return level === "breach" && !last.breach;
  }

  async function evaluate(): Promise<void> {
    do {
      again = false;
      status.lastEvaluatedAt = clock();
      for (const v of await activeVaults()) {
        if (v.paused) continue;
        const level = nearLimit(v);
        if (!level || !due(v.address, level)) continue;
        lastEarly.set(v.address, { at: clock(), breach: level === "breach" });
        status.earlyWrites += 1;
        log.info({ vault: v.address }, "estimated drawdown at the limit between polls: reading and writing the balance now");
        await deps.refresh(v.address, { fenced: true }).catch((err) => log.warn({ vault: v.address, err: (err as Error).message }, "early balance write failed; the oracle's poll follows"));
      }
    } while (again);
  }

  return {
    /** A price update from the stream: newer mids replace older ones, coin by coin. */
    onMids(update: Record<string, string>): void {
      Object.assign(mids, update);
      if (running) {
        again = true; // evaluated once more with the newest prices when the current pass ends
        return;
      }
      running = evaluate()
        .catch((err) => log.error({ err: (err as Error).message }, "revaluing vaults failed"))
        .finally(() => (running = undefined));
    },
    status: (): VaultWatchStatus => ({ ...status }),
    /** Waits for a pass in progress (tests, shutdown). */
    idle: async () => {
      while (running) await running;
    },
  };
}

export type VaultWatch = ReturnType<typeof createVaultWatch>;
