// What the operator must hear about, each a condition the alert monitor checks (alert-monitor.ts):
// per daemon, its oracle unhealthy for three intervals, the exchange or the chain unreachable from
// it, its embedded chain's snapshots failing; shared, the operator's gas below --alert-gas-below, a
// vault out of policy (enforcement failing), an open vault's agent key expiring or lapsed.
import { formatEther } from "ethers";
import type { Executor } from "../db/store.js";
import { allEnforcement } from "../db/enforcement-repo.js";
import { shortAddress, utcTime } from "../lib/figures.js";
import { agentKeysDue } from "../notices/agent-expiry.js";
import type { Condition, Finding } from "./alert-monitor.js";
import { ORACLE_DOWN_AFTER_INTERVALS } from "../health.js";

export interface ConditionParts {
  db: Executor;
  daemon: string;
  oracle: { status(): { ageSeconds: number; lastError: string | null } };
  oracleIntervalS: number;
  /** A cheap read the exchange answers (its mids). */
  probeExchange(): Promise<unknown>;
  /** The chain's height. */
  probeChain(): Promise<unknown>;
  /** The embedded chain's maintenance failure; absent on an external chain. */
  snapshotError?: () => string | null;
  operatorBalance(): Promise<bigint>;
  operator: string;
  /** --alert-gas-below in wei; absent: no gas alert. */
  gasBelow?: bigint;
  clock: () => number;
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** A probe that has not answered in this long counts as unreachable (within the monitor's bound on a check). */
export const PROBE_TIMEOUT_MS = 10_000;

function bounded<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms / 1000} s`)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

/** A finding when `probe` fails or hangs: the part is unreachable from this daemon. */
function reachable(name: string, what: string, daemon: string, probe: () => Promise<unknown>): Condition {
  return {
    name, scope: "daemon",
    check: async () => {
      try {
        await bounded(probe(), PROBE_TIMEOUT_MS);
        return [];
      } catch (err) {
        return [{ key: `${name}:${daemon}`, title: `${what} unreachable`, text: `daemon ${daemon} cannot reach the ${what.toLowerCase()}: ${message(err)}` }];
      }
    },
  };
}

export function operatorConditions(p: ConditionParts): Condition[] {
  const conditions: Condition[] = [
    {
      name: "oracle", scope: "daemon",
      check: async () => {
        const o = p.oracle.status();
        if (o.ageSeconds <= ORACLE_DOWN_AFTER_INTERVALS * p.oracleIntervalS) return [];
        return [{
          key: `oracle:${p.daemon}`, title: "Oracle unhealthy",
          text: `daemon ${p.daemon}: no successful oracle cycle for ${o.ageSeconds} s${o.lastError ? ` (${o.lastError})` : ""}; its vaults' balances are not being written`,
        }];
      },
    },
    reachable("exchange", "Exchange", p.daemon, p.probeExchange),
    reachable("chain", "Chain", p.daemon, p.probeChain),
    {
      name: "enforcement", scope: "shared",
      check: async () => (await allEnforcement(p.db)).filter((r) => r.state === "failing").map((r): Finding => ({
        key: `enforcement:${r.vault}`, title: "Vault out of policy",
        text: `vault ${shortAddress(r.vault)} has not held its breach policy since ${utcTime(Math.floor(r.started_at / 1000))}: ${r.last_error ?? "the exchange is not answering"} (the daemon keeps trying)`,
      })),
    },
    {
      name: "agent", scope: "shared",
      check: async () => (await agentKeysDue(p.db, p.clock())).map((a): Finding => ({
        key: `agent:${a.agent}:${a.state}`,
        title: a.state === "lapsed" ? "Agent key expired" : "Agent key expiring",
        text: `the agent key of vault ${shortAddress(a.vault)} ${a.state === "lapsed" ? "expired" : "expires"} at ${utcTime(Math.floor(a.validUntil / 1000))}: the investor must approve a new one`,
      })),
    },
  ];
  if (p.snapshotError) {
    const error = p.snapshotError;
    conditions.push({
      name: "snapshot", scope: "daemon",
      check: async () => {
        const why = error();
        return why === null ? [] : [{ key: `snapshot:${p.daemon}`, title: "Chain snapshots failing", text: `daemon ${p.daemon}: the embedded chain's snapshot failed: ${why}` }];
      },
    });
  }
  if (p.gasBelow !== undefined) {
    const threshold = p.gasBelow;
    conditions.push({
      name: "gas", scope: "shared",
      check: async () => {
        const balance = await p.operatorBalance();
        if (balance >= threshold) return [];
        return [{
          key: "gas", title: "Operator gas low",
          text: `the operator ${p.operator} holds ${formatEther(balance)}, below --alert-gas-below ${formatEther(threshold)}: fund it, or balance writes and pauses stop`,
        }];
      },
    });
  }
  return conditions;
}
