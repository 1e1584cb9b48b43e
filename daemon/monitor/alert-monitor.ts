// The operator's alerts: on its own timer, each condition is checked and what it finds (each finding
// with a stable key) is compared with the alerts firing in the database. A finding not firing yet
// starts an alert, a firing alert no longer found clears it: one message each, never one a cycle.
// Starts and clears are claimed by one statement each (operator-alerts-repo.ts), so a restart does
// not announce again what it had announced, and of several daemons one announces. A shared
// condition (the operator's gas, a vault out of policy) is checked only by the daemon that holds the
// sender's lease; a per-daemon one (its oracle, its view of the chain) by each daemon, naming itself.
import type { Logger } from "pino";
import type { UnitOfWork, Executor } from "../db/store.js";
import * as repo from "../db/operator-alerts-repo.js";
import type { OperatorAlert } from "./alert-sender.js";

export interface Finding {
  /** `<condition name>` or `<condition name>:<what>` (a vault, an agent, this daemon). */
  key: string;
  title: string;
  text: string;
}

export interface Condition {
  /** The first part of each of its findings' keys: a check that failed leaves its alerts as they are. */
  name: string;
  scope: "shared" | "daemon";
  check(): Promise<Finding[]>;
}

/** A check that has not answered in this long counts as not made (its alerts stay as they are). */
export const CHECK_TIMEOUT_MS = 15_000;

const conditionOf = (key: string) => key.split(":")[0]!;

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms / 1000} s`)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

export function createAlertMonitor(deps: {
  db: Executor;
  work: UnitOfWork;
  /** This daemon's id: what per-daemon alerts name. */
  daemon: string;
  /** True when this daemon sends for the cluster (always, alone on a database). */
  isSender(): boolean;
  conditions: Condition[];
  send(alert: OperatorAlert): void;
  clock: () => number;
  log: Logger;
  intervalMs: number;
}) {
  const { db, work, daemon, clock, log } = deps;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = true;
  let last: Promise<void> = Promise.resolve();
  /** One check at a time, whether the timer or a caller asks. */
  const serial = (): Promise<void> => (last = last.catch(() => undefined).then(tick));

  /** What each condition checked finds now, and which conditions were checked. */
  async function findings(shared: boolean): Promise<{ found: Map<string, Finding>; checked: Set<string> }> {
    const found = new Map<string, Finding>();
    const checked = new Set<string>();
    for (const c of deps.conditions) {
      if (c.scope === "shared" && !shared) continue;
      try {
        for (const f of await withTimeout(c.check(), CHECK_TIMEOUT_MS)) found.set(f.key, f);
        checked.add(c.name);
      } catch (err) {
        log.debug({ condition: c.name, err: (err as Error).message }, "alert condition not checked this time");
      }
    }
    return { found, checked };
  }

  async function tick(): Promise<void> {
    const shared = deps.isSender();
    const { found, checked } = await findings(shared);
    const firing = await repo.firingAlerts(db, daemon, shared);
    const now = clock();
    for (const f of found.values()) {
      if (firing.some((r) => r.key === f.key)) continue;
      const scope = deps.conditions.find((c) => c.name === conditionOf(f.key))?.scope;
      const row = { key: f.key, daemon: scope === "daemon" ? daemon : null, title: f.title, text: f.text, since: now };
      if (await work.relaxed((trx) => repo.startAlert(trx, row))) deps.send({ ...row, state: "firing", time: now });
    }
    for (const r of firing) {
      if (found.has(r.key) || !checked.has(conditionOf(r.key))) continue;
      if (!(await work.relaxed((trx) => repo.clearAlert(trx, r.key)))) continue;
      const minutes = Math.max(1, Math.round((now - r.since) / 60_000));
      deps.send({ ...r, state: "cleared", text: `no longer the case after ${minutes} min (it was: ${r.text})`, time: now });
    }
  }

  function schedule(delayMs: number): void {
    if (stopped) return;
    timer = setTimeout(() => {
      running = serial()
        .catch((err) => log.warn({ err: (err as Error).message }, "checking the operator's alerts failed; trying again next time"))
        .finally(() => {
          running = undefined;
          schedule(deps.intervalMs);
        });
    }, delayMs);
    timer.unref();
  }

  return {
    /** One check now, after any in progress (tests drive it; the timer does the same). */
    tick: serial,
    start(firstDelayMs = 0): void {
      stopped = false;
      schedule(firstDelayMs);
    },
    async stop(): Promise<void> {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}

export type AlertMonitor = ReturnType<typeof createAlertMonitor>;
