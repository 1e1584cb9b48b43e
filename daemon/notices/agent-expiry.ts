// An agent key about to expire (within 7 days) or lapsed, told to the investor of the vault it trades
// (AgentExpiring, AgentLapsed: once per key and threshold, as user notices), and read by the
// operator's alerts as a condition. Only the newest approved key of each open vault's account counts:
// an older one that expires after its successor was approved concerns nobody.
import type { Executor, UnitOfWork } from "../db/store.js";
import { vaultAgents } from "../db/agents-repo.js";
import { storedKeys } from "../db/user-notices-repo.js";
import type { UserNotices } from "./user-notices.js";

/** How long before an agent key's expiry the investor is told (the daemon proposes a successor from then on too). */
export const AGENT_NOTICE_MS = 7 * 86_400_000;

export interface AgentKeyState {
  vault: string;
  investor: string;
  account: string;
  agent: string;
  /** Unix ms. */
  validUntil: number;
  state: "expiring" | "lapsed";
}

/** The open vaults' agent keys that expire within 7 days or have expired. */
export async function agentKeysDue(db: Executor, nowMs: number): Promise<AgentKeyState[]> {
  const out: AgentKeyState[] = [];
  for (const a of await vaultAgents(db)) {
    if (a.valid_until - nowMs > AGENT_NOTICE_MS) continue;
    out.push({ vault: a.vault, investor: a.investor, account: a.account, agent: a.agent, validUntil: a.valid_until, state: a.valid_until <= nowMs ? "lapsed" : "expiring" });
  }
  return out;
}

export function createAgentExpiry(deps: { db: Executor; work: UnitOfWork; notices: UserNotices; clock: () => number }) {
  const { db, work, notices, clock } = deps;
  return {
    /** One pass (the oracle's upkeep): a notice for each key newly due; a key already told is skipped by its notice's key. */
    async sweep(): Promise<void> {
      const now = clock();
      const due = await agentKeysDue(db, now);
      const keyOf = (a: AgentKeyState) => `${a.state === "lapsed" ? "AgentLapsed" : "AgentExpiring"}:${a.agent}`;
      // Read first: a key told long ago costs a read each cycle, not a write.
      const told = await storedKeys(db, due.map(keyOf));
      for (const a of due.filter((x) => !told.has(keyOf(x)))) {
        const base = { agent: a.agent, account: a.account, vault: a.vault, validUntil: Math.floor(a.validUntil / 1000) };
        await work.relaxed((trx) => a.state === "lapsed"
          ? notices.notifyParty(trx, { user: a.investor, type: "AgentLapsed", key: keyOf(a), data: base })
          : notices.notifyParty(trx, {
            user: a.investor, type: "AgentExpiring", key: keyOf(a),
            data: { ...base, daysLeft: Math.ceil((a.validUntil - now) / 86_400_000) },
          }));
      }
    },
  };
}
