// Enforcement of each paused vault's breach policy (docs/design.md "Enforcement"). The pause is
// on-chain and reliable; what the daemon does to the exposure afterwards must be too, so it is a
// reconciliation, not a reaction to one event: for every paused vault, compare what the exchange
// account holds with what the policy allows while paused (breach-policies.ts), and act until they
// agree. It runs when this daemon's own chain call pauses a vault (a balance write's result, the
// operator's pause), when it takes a vault over, at start, each oracle cycle for a paused vault it holds
// (so a pause sent from elsewhere is met there), after a failure (backoff, a few seconds at most while
// out of policy) and every few cycles once the vault holds.
// One run per vault at a time; what it did is kept in vault_enforcement, so a restart resumes it and
// the outcome event is recorded once per pause.
import type { Logger } from "pino";
import type { Executor, UnitOfWork } from "../db/store.js";
import * as vaultsRepo from "../db/vaults-repo.js";
import type { EnforcementRow, VaultEventRow, VaultRow } from "../db/schema-chain.js";
import { AppError, asAppError } from "../errors.js";
import type { ReadOptions } from "../exchange/types.js";
import { breachPolicyRule } from "./breach-policies.js";
import { createExposure, isInDoubt, type DustPosition, type Exposure, type ExposureDeps } from "./exposure.js";
import { createEnforcementRows, failingEvent, outcomeEvent, type EnforcementState } from "./enforcement-rows.js";
import { createOutageGate } from "./outage-gate.js";
import type { VaultShare } from "./vault-share.js";
import { backoffMs } from "../lib/backoff.js";

export type { EnforcementState };

/** GET /api/vaults/:address `enforcement`: null while the vault is not paused. */
export interface EnforcementView {
  state: EnforcementState;
  /** Unix seconds: since when the vault is in this state. */
  since: number;
  attempts: number;
  lastError: string | null;
}

export interface EnforcementDeps extends ExposureDeps {
  db: Executor;
  work: UnitOfWork;
  /** Publishes stored events to live streams (after commit). */
  publish(rows: VaultEventRow[]): void;
  /** Records the vault's fills as trades (after a flatten). */
  recordFills(v: VaultRow): Promise<void>;
  clock: () => number;
  log: Logger;
  /** The oracle's interval: a vault out of policy for more than two is `failing`. */
  intervalMs: number;
  /** Only the vaults this daemon holds are enforced here (their holder enforces the others). */
  share: VaultShare;
  /** A vault that holds its policy is re-checked every this many oracle cycles, and at most every 5 minutes (default 5). */
  recheckEvery?: number;
  /** The longest wait between two tries while a vault is out of policy and the error is retryable. */
  retryCapMs?: number;
}

/** Passes (read, act) per run: one to act and one to see it held; a third for a partial fill. */
const MAX_PASSES = 3;
/** A holding vault is re-checked at most this often (openOrders costs 20 weight). */
const RECHECK_MIN_MS = 5 * 60_000;
/**
 * A vault waiting out an outage still tries by itself, in case the outage is not everyone's: after
 * 30 s, then twice as long each time, up to 5 minutes (the probe wakes it as soon as the exchange
 * answers, so this only bounds the cost of a long outage).
 */
const waitingRetryMs = (attempts: number) => backoffMs(attempts, 30_000, 300_000);
/** Tries of a vault out of policy that may use the budget kept for trading; later ones leave it to trading. */
const URGENT_ATTEMPTS = 3;
const AGENT_LAPSED =
  "the exchange no longer accepts the daemon's agent key for this vault's account (it expired, was pruned or was revoked): " +
  "the investor must approve a new agent (npx tradevault agent approve, or Approve agent on the dashboard's Account tab)";

const toSeconds = (ms: number) => Math.floor(ms / 1000);

export function createEnforcement(deps: EnforcementDeps) {
  const { db, clock, log } = deps;
  const exposure: Exposure = createExposure(deps);
  const recheckMs = Math.max((deps.recheckEvery ?? 5) * deps.intervalMs, RECHECK_MIN_MS);
  const retryCapMs = deps.retryCapMs ?? 3_000;
  const rows = createEnforcementRows(deps);
  const { toState, save } = rows;
  /** When each holding vault was last compared with the exchange (Unix ms). */
  const checkedAt = new Map<string, number>();
  const retries = new Map<string, NodeJS.Timeout>();
  /** When a vault out of policy turns `failing` (two intervals after it was first seen out of policy). */
  const promotions = new Map<string, NodeJS.Timeout>();
  const running = new Map<string, Promise<void>>();
  /** A promote() saving the vault's `failing` state, which a failed run waits for. */
  const promoting = new Map<string, Promise<void>>();
  const again = new Set<string>();
  let stopped = false;
  const gate = createOutageGate((waiting) => {
    for (const address of waiting) {
      clearTimeout(retries.get(address));
      retries.delete(address);
      void trigger(address);
    }
  });

  async function drop(address: string) {
    clearTimeout(retries.get(address));
    retries.delete(address);
    clearTimeout(promotions.get(address));
    promotions.delete(address);
    checkedAt.delete(address);
    gate.forget(address);
    await rows.drop(address);
  }

  async function held(v: VaultRow, row: EnforcementRow, dust: DustPosition[]) {
    await promoting.get(v.address)?.catch(() => undefined);
    gate.answered(v.address);
    clearTimeout(promotions.get(v.address));
    promotions.delete(v.address);
    const dustJson = JSON.stringify(dust);
    if (row.state === "holds" && row.outcome_recorded === 1) {
      // A re-check that found it holding: nothing to record.
      Object.assign(row, { last_error: null, dust: dustJson });
      return;
    }
    const changes: Partial<EnforcementRow> = { ...toState(row, "holds"), last_error: null, dust: dustJson, outcome_recorded: 1 };
    const event = row.outcome_recorded === 0 ? outcomeEvent(v, { ...row, ...changes }) : undefined;
    await save(row, changes, event);
    log.info({ vault: v.address, policy: breachPolicyRule(v.breach_policy).name, attempts: row.attempts }, "paused vault holds its breach policy");
    if (JSON.parse(row.closed).length > 0) {
      await deps.recordFills(v).catch((err) => log.warn({ vault: v.address, err: (err as Error).message }, "cannot record the flattening fills yet"));
    }
  }

  /** Out of policy for more than two oracle intervals: `failing`, whether or not a try is running. */
  const overdue = (row: EnforcementRow) => row.state !== "holds" && clock() - row.started_at > 2 * deps.intervalMs;

  /**
   * Turns a vault `failing` once it is overdue, with its event: on a timer set at its first failure,
   * so a vault waiting out an outage (it tries nothing itself) turns on time too.
   */
  async function promote(address: string): Promise<void> {
    // A run going now records EnforcementFailing itself if it fails overdue; it decides first, and a
    // run that fails while this records it waits (failed()), so the event is recorded once.
    const current = running.get(address);
    if (current) return void current.then(() => promote(address)).catch((e) => log.error({ vault: address, err: e }, "cannot record EnforcementFailing"));
    const row = rows.get(address);
    if (!row || row.state === "failing" || !overdue(row)) return;
    const recording = (async () => {
      const changes: Partial<EnforcementRow> = { ...toState(row, "failing"), failing_recorded: 1 };
      const event = row.failing_recorded === 0 ? failingEvent((await vaultsRepo.findVault(db, address))?.breach_policy, { ...row, ...changes }) : undefined;
      await save(row, changes, event);
    })().finally(() => promoting.delete(address));
    promoting.set(address, recording);
    await recording;
  }

  async function failed(v: VaultRow, row: EnforcementRow, err: AppError, recheck: boolean) {
    await promoting.get(v.address)?.catch(() => undefined);
    const message = err.code === "AGENT_NOT_APPROVED" ? AGENT_LAPSED : err.message;
    if (recheck) {
      row.last_error = message;
      // A holding vault whose re-check could not read the account still holds as far as anyone knows.
      log.warn({ vault: v.address, err: message }, "cannot re-check a paused vault's breach policy; next cycle");
      return;
    }
    const failing = !err.retryable || overdue(row);
    if (!failing && !promotions.has(v.address)) {
      const timer = setTimeout(() => {
        promotions.delete(v.address);
        void promote(v.address).catch((e) => log.error({ vault: v.address, err: e }, "cannot record EnforcementFailing"));
      }, row.started_at + 2 * deps.intervalMs - clock() + 10);
      timer.unref();
      promotions.set(v.address, timer);
    }
    const changes: Partial<EnforcementRow> = { ...toState(row, failing ? "failing" : "enforcing"), last_error: message };
    const event = failing && row.failing_recorded === 0 ? failingEvent(v.breach_policy, { ...row, ...changes }) : undefined;
    if (event) changes.failing_recorded = 1;
    await save(row, changes, event);
    const delay = retryDelay(v.address, row, err);
    log.warn({ vault: v.address, attempts: row.attempts, retryInMs: delay, err: message }, "paused vault does not hold its breach policy yet; retrying");
    retryIn(v.address, delay);
  }

  /**
   * How soon the vault tries again: within seconds while the error is retryable; but while the
   * exchange is down for everyone only the probing vault does (outage-gate.ts).
   */
  function retryDelay(address: string, row: EnforcementRow, err: AppError): number {
    const backoff = backoffMs(row.attempts, 500, retryCapMs);
    if (err.code === "EXCHANGE_UNAVAILABLE" && err.retryable) return gate.failed(address) ? backoff : waitingRetryMs(row.attempts);
    if (isInDoubt(err)) {
      const next = gate.pass(address);
      if (next) retryIn(next, 0);
      return next ? waitingRetryMs(row.attempts) : backoff;
    }
    gate.answered(address);
    return err.retryable ? backoff : Math.min(deps.intervalMs, 30_000);
  }

  function retryIn(address: string, ms: number) {
    clearTimeout(retries.get(address));
    const timer = setTimeout(() => {
      retries.delete(address);
      void trigger(address);
    }, ms);
    timer.unref();
    retries.set(address, timer);
  }

  /** One run: read and act until the account holds the policy, or a failure (retried later). */
  async function enforce(address: string): Promise<void> {
    const v = await vaultsRepo.findVault(db, address);
    if (!v || v.closed || !v.paused) return drop(address);
    const row = rows.forVault(v);
    const recheck = row.state === "holds" && row.outcome_recorded === 1;
    checkedAt.set(address, clock());
    const opts: ReadOptions = { priority: recheck || row.attempts >= URGENT_ATTEMPTS ? "background" : "trading" };
    let acted = false;
    try {
      for (let pass = 0; pass < MAX_PASSES; pass += 1) {
        const r = await exposure.pass(v, breachPolicyRule(v.breach_policy).enforce, opts);
        if (r.holds) return await held(v, row, r.dust);
        if (!acted) row.attempts += 1;
        acted = true;
        row.canceled_orders += r.canceled;
        if (r.closed.length > 0) row.closed = JSON.stringify([...JSON.parse(row.closed), ...r.closed]);
        // Saved before the next read: a crash now must not forget what was already closed.
        await save(row, row.state === "holds" ? toState(row, "enforcing") : {});
      }
      throw new AppError("EXCHANGE_UNAVAILABLE", `the account still differs from the policy after ${MAX_PASSES} passes`, { retryable: true });
    } catch (err) {
      if (!acted && !recheck) row.attempts += 1;
      await failed(v, row, asAppError(err), recheck && !acted);
    }
  }

  /**
   * Runs enforcement for the vault now. A trigger while a run is going makes one more run after it
   * (what it saw may predate the trigger).
   */
  function trigger(address: string): Promise<void> {
    const current = running.get(address);
    if (current) {
      again.add(address);
      return current;
    }
    if (stopped) return Promise.resolve();
    const run = (async () => {
      do {
        again.delete(address);
        await enforce(address).catch((err) => log.error({ vault: address, err }, "enforcement run failed"));
      } while (again.has(address) && !stopped);
    })().finally(() => running.delete(address));
    running.set(address, run);
    return run;
  }

  return {
    trigger,
    /** The vault's run in progress, if any (done when it is). */
    current: (address: string): Promise<void> => running.get(address) ?? Promise.resolve(),
    /**
     * Each oracle cycle: vaults out of policy are tried again (their retry timer may be waiting on a
     * backoff), holding ones re-checked every few cycles, paused ones without a run yet (a pause sent
     * from elsewhere) started, and rows of vaults no longer paused or open dropped. The vaults are read
     * afresh: the cycle's own list predates the pauses its readings caused.
     */
    async cycle(): Promise<void> {
      const runs: Promise<void>[] = [];
      const active = await vaultsRepo.activeVaults(db);
      const open = new Set(active.map((v) => v.address));
      for (const row of [...rows.values()]) if (!open.has(row.vault)) runs.push(drop(row.vault));
      for (const v of active) {
        if (!deps.share.holds(v.address)) continue;
        if (!v.paused) {
          if (rows.get(v.address)) runs.push(drop(v.address));
          continue;
        }
        const row = rows.get(v.address);
        const holding = row?.state === "holds" && row.pause_pos === v.pause_pos;
        if (holding && clock() - (checkedAt.get(v.address) ?? 0) < recheckMs) continue;
        // A vault waiting out an outage is woken by the probe that sees the exchange answer.
        if (gate.isWaiting(v.address)) {
          runs.push(promote(v.address));
          continue;
        }
        runs.push(trigger(v.address));
      }
      await Promise.all(runs);
    },
    /** At start: the rows of an earlier run, and a run for every paused vault (a restart resumes). */
    async start(): Promise<void> {
      await rows.load();
      for (const v of await vaultsRepo.activeVaults(db)) if (v.paused && deps.share.holds(v.address)) void trigger(v.address);
    },
    /**
     * Runs `fn` (a close's flatten) with no enforcement run of the vault alongside: the two would
     * otherwise read the same position and both send a close for it.
     */
    async exclusive<T>(address: string, fn: () => Promise<T>): Promise<T> {
      while (running.has(address)) await running.get(address);
      const p = fn();
      const settled = p.then(() => undefined, () => undefined);
      running.set(address, settled);
      try {
        return await p;
      } finally {
        running.delete(address);
        again.delete(address);
        // A run after it: a close that went through leaves the vault's enforcement to be forgotten, a
        // failed one leaves it paused, to be enforced again.
        void trigger(address);
      }
    },
    /** Cancels and closes everything, for a vault's close: throws unless only dust is left. */
    flattenForClose: (v: VaultRow) => exposure.flattenAll(v),
    view(v: VaultRow): EnforcementView | null {
      if (!v.paused || v.closed) return null;
      const row = rows.get(v.address);
      if (!row || row.pause_pos !== v.pause_pos) return { state: "enforcing", since: toSeconds(clock()), attempts: 0, lastError: null };
      return { state: row.state, since: toSeconds(row.since), attempts: row.attempts, lastError: row.last_error };
    },
    /** /healthz and /metrics: paused vaults not holding their policy, and for how long the oldest has not. */
    summary(): { outOfPolicy: number; oldestSeconds: number } {
      let outOfPolicy = 0;
      let oldest = 0;
      for (const row of rows.values()) {
        if (row.state === "holds") continue;
        outOfPolicy += 1;
        oldest = Math.max(oldest, toSeconds(clock() - row.started_at));
      }
      return { outOfPolicy, oldestSeconds: oldest };
    },
    async stop(): Promise<void> {
      stopped = true;
      for (const t of [...retries.values(), ...promotions.values()]) clearTimeout(t);
      retries.clear();
      promotions.clear();
      await Promise.all([...running.values()]);
    },
  };
}

export type Enforcement = ReturnType<typeof createEnforcement>;
