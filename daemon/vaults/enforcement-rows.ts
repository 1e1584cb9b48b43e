// The enforcement state of each paused vault: kept in memory, saved in vault_enforcement (one row per
// paused vault, keyed by the pause's chain position), and the events it records, each in the same
// commit as the row that says it was recorded, so a restart neither repeats nor loses one.
import type { UnitOfWork } from "../db/store.js";
import * as enforcementRepo from "../db/enforcement-repo.js";
import type { Executor } from "../db/store.js";
import type { EnforcementRow, VaultEventRow, VaultRow } from "../db/schema-chain.js";
import { breachPolicyRule } from "./breach-policies.js";
import type { ClosedPosition, DustPosition } from "./exposure.js";
import { appendDaemonEvent } from "./vault-events.js";

export type EnforcementState = "holds" | "enforcing" | "failing";

export interface RecordedEvent {
  type: string;
  data: Record<string, unknown>;
}

const toSeconds = (ms: number) => Math.floor(ms / 1000);

/** The outcome, once per pause: what it took to make the account hold the policy. */
export function outcomeEvent(v: VaultRow, row: EnforcementRow): RecordedEvent {
  const rule = breachPolicyRule(v.breach_policy);
  if (!rule.enforce.closePositions) {
    return { type: "OrdersCanceled", data: { reason: "paused", count: row.canceled_orders, attempts: row.attempts } };
  }
  return {
    type: "Flattened",
    data: {
      reason: "paused", canceledOrders: row.canceled_orders, positions: JSON.parse(row.closed) as ClosedPosition[],
      dust: JSON.parse(row.dust) as DustPosition[], attempts: row.attempts,
    },
  };
}

export function failingEvent(policyCode: number | undefined, row: EnforcementRow): RecordedEvent {
  return {
    type: "EnforcementFailing",
    data: {
      policy: breachPolicyRule(policyCode).name, since: toSeconds(row.started_at), attempts: row.attempts,
      error: row.last_error ?? "the exchange is not answering",
    },
  };
}

export function createEnforcementRows(deps: { db: Executor; work: UnitOfWork; publish(rows: VaultEventRow[]): void; clock: () => number }) {
  const { work, clock } = deps;
  const rows = new Map<string, EnforcementRow>();

  return {
    get: (address: string) => rows.get(address),
    values: () => rows.values(),
    /** The vault's row for its current pause: a new pause starts a new one. */
    forVault(v: VaultRow): EnforcementRow {
      const known = rows.get(v.address);
      if (known && known.pause_pos === v.pause_pos) return known;
      const now = clock();
      const row: EnforcementRow = {
        vault: v.address, pause_pos: v.pause_pos, state: "enforcing", since: now, started_at: now, attempts: 0, last_error: null,
        canceled_orders: 0, closed: "[]", dust: "[]", outcome_recorded: 0, failing_recorded: 0, updated_at: now,
      };
      rows.set(v.address, row);
      return row;
    },
    /** The fields that move the row to `state` (and restart its `since`), if it is not there. */
    toState(row: EnforcementRow, state: EnforcementState): Partial<EnforcementRow> {
      return row.state === state ? {} : { state, since: clock() };
    },
    /**
     * Saves the row with `changes`, and an event in the same commit when one is due. The shared row
     * takes the changes only once the commit has landed: a reader (the vault's detail) never sees a
     * state whose event is not stored yet, and a failed save leaves the row as it was.
     */
    async save(row: EnforcementRow, changes: Partial<EnforcementRow>, event?: RecordedEvent): Promise<void> {
      const applied = { ...changes, updated_at: clock() };
      const stored = await work.write(async (trx) => {
        await enforcementRepo.saveEnforcement(trx, { ...row, ...applied });
        if (!event) return undefined;
        return appendDaemonEvent(trx, { vault: row.vault, type: event.type, time: toSeconds(clock()), data: event.data }, clock());
      });
      Object.assign(row, applied);
      if (stored) deps.publish([stored]);
    },
    async drop(address: string): Promise<void> {
      if (rows.delete(address)) await work.relaxed((trx) => enforcementRepo.dropEnforcement(trx, address));
    },
    /** The rows an earlier run of the daemon left. */
    async load(): Promise<void> {
      for (const row of await enforcementRepo.allEnforcement(deps.db)) rows.set(row.vault, row);
    },
  };
}

export type EnforcementRows = ReturnType<typeof createEnforcementRows>;
