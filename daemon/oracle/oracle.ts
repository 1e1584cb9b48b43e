// The oracle loop (SPEC 1, DESIGN section 7): every interval it runs one cycle of the vault service's
// poll (read every active vault, write the balances on-chain, react) and the upkeep riding on it. This
// module is only the loop: the timer, a per-cycle deadline, backoff after a failure, and the status
// /healthz reports. A cycle succeeds only when it read what it had to read: at least one active vault,
// or, with none active, the exchange answered.
import type { Logger } from "pino";
import { backoffMs } from "../lib/backoff.js";

export interface OracleStatus {
  lastCycleAt: number | null;
  lastResult: "ok" | "error" | null;
  lastError: string | null;
  /** Unix ms of the last successful cycle; null before the first. */
  lastSuccessAt: number | null;
  activeVaults: number;
  durationMs: number | null;
}

export interface OracleDeps {
  /** One cycle's work: vaults active (not closed), due a reading, and read. */
  poll(): Promise<{ active: number; due: number; read: number }>;
  /** With no active vault, proof that the exchange answers (a cheap read). */
  probe(): Promise<unknown>;
  /** Background upkeep riding on the cycle (proposals, deadline notices, agent expiry, forced fills). */
  upkeep(): Promise<void>;
  clock: () => number;
  log: Logger;
  intervalMs: number;
  /** A cycle running longer than this counts as failed (default: the interval, at least 30 s). */
  deadlineMs?: number;
  /** How many vaults the exchange's request budget lets one cycle read, to warn when the active vaults exceed it; none on the sim. */
  capacity?: number;
}

export function createOracle(deps: OracleDeps) {
  const { clock, log } = deps;
  const startedAt = clock();
  const status: OracleStatus = { lastCycleAt: null, lastResult: null, lastError: null, lastSuccessAt: null, activeVaults: 0, durationMs: null };
  const deadlineMs = deps.deadlineMs ?? Math.max(deps.intervalMs, 30_000);
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;
  let failures = 0;
  /** The last cycle's work, which may outlive its deadline: the next cycle starts after it. */
  let lastWork: Promise<void> = Promise.resolve();

  async function work(): Promise<void> {
    const started = clock();
    const { active, due, read } = await deps.poll();
    const capacity = deps.capacity ?? Infinity;
    if (active > capacity && status.activeVaults <= capacity) {
      log.warn(
        { activeVaults: active, capacity, intervalSeconds: deps.intervalMs / 1000 },
        "more active vaults than the exchange's request budget lets the oracle read each interval; cycles will run late (raise --oracle-interval or run another daemon)",
      );
    }
    status.activeVaults = active;
    if (due > 0 && read === 0) throw new Error(`no active vault could be read (${due} due)`);
    if (due === 0) await deps.probe();
    await deps.upkeep();
    status.durationMs = clock() - started;
  }

  /** One cycle, bounded in time; the work goes on after the deadline, but the next cycle waits for it. */
  async function cycle(): Promise<void> {
    const done = work();
    lastWork = done.catch(() => undefined);
    let timeout: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timeout = setTimeout(() => reject(new Error(`the cycle took longer than ${deadlineMs / 1000} s`)), deadlineMs);
    });
    try {
      await Promise.race([done, late]);
    } finally {
      clearTimeout(timeout);
    }
  }

  function schedule(delayMs: number) {
    if (stopped) return;
    timer = setTimeout(() => {
      running = cycle()
        .then(() => {
          failures = 0;
          const now = clock();
          Object.assign(status, { lastCycleAt: now, lastResult: "ok", lastError: null, lastSuccessAt: now });
        })
        .catch((err) => {
          failures += 1;
          Object.assign(status, { lastCycleAt: clock(), lastResult: "error", lastError: (err as Error).message });
          log.error({ err: (err as Error).message, failures }, "oracle cycle failed; retrying with backoff");
        })
        .finally(() => {
          running = undefined;
          const backoff = failures === 0 ? deps.intervalMs : backoffMs(failures + 1, 1_000, Math.min(deps.intervalMs, 64_000));
          void lastWork.then(() => schedule(backoff));
        });
    }, delayMs);
    timer.unref();
  }

  return {
    status: (): OracleStatus & { ageSeconds: number } => ({
      ...status,
      // Before the first success the age runs from start, so a daemon that never succeeds turns unhealthy.
      ageSeconds: Math.floor((clock() - (status.lastSuccessAt ?? startedAt)) / 1000),
    }),
    /** Runs one cycle now (tests drive cycles themselves); rejects as the loop would count a failure. */
    cycle,
    start(firstDelayMs = 0) {
      stopped = false;
      schedule(firstDelayMs);
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
      await lastWork;
    },
  };
}

export type Oracle = ReturnType<typeof createOracle>;
