// DeadlineApproaching: a vault event recorded once, 24 hours before the deal's deadline, by the
// oracle's cycle (its upkeep). Each cycle records it for every held vault that is due and has not had
// it; "has not had it" is vaults.deadline_notice, set by a conditional update in the event's own
// transaction, so a restart, a second cycle or a second daemon that took the vault over records no
// second copy (on PostgreSQL the update waits for the row's lock, then finds it set).
import type { Executor, UnitOfWork } from "../db/store.js";
import type { VaultEventRow, VaultRow } from "../db/schema-chain.js";
import { appendDaemonEvent } from "./vault-events.js";
import type { VaultShare } from "./vault-share.js";

/** How long before the deadline the event is recorded. */
export const DEADLINE_NOTICE_S = 24 * 3600;

/** Open vaults whose deadline is within the notice window and still ahead, and that have not had their notice. */
export function dueForNotice(db: Executor, nowS: number): Promise<VaultRow[]> {
  return db.selectFrom("vaults").selectAll()
    .where("closed", "=", 0).where("deadline_notice", "=", 0)
    .where("deal_deadline", ">", nowS).where("deal_deadline", "<=", nowS + DEADLINE_NOTICE_S)
    .execute();
}

export function createDeadlineNotices(deps: {
  db: Executor;
  work: UnitOfWork;
  share: VaultShare;
  publish(rows: VaultEventRow[]): void;
  clock: () => number;
}) {
  const { db, work, clock } = deps;

  async function record(v: VaultRow, nowS: number): Promise<VaultEventRow | undefined> {
    return work.write(async (trx) => {
      const claimed = await trx.updateTable("vaults").set({ deadline_notice: 1 })
        .where("address", "=", v.address).where("deadline_notice", "=", 0)
        .executeTakeFirst();
      if (Number(claimed.numUpdatedRows) !== 1) return undefined;
      const hoursLeft = Math.floor((v.deal_deadline - nowS) / 3600);
      return appendDaemonEvent(trx, { vault: v.address, type: "DeadlineApproaching", time: nowS, data: { deadline: v.deal_deadline, hoursLeft } }, clock());
    });
  }

  return {
    /** One pass: the event for each held vault now due. */
    async sweep(): Promise<void> {
      const nowS = Math.floor(clock() / 1000);
      const stored: VaultEventRow[] = [];
      for (const v of await dueForNotice(db, nowS)) {
        if (!deps.share.holds(v.address)) continue;
        const row = await record(v, nowS);
        if (row) stored.push(row);
      }
      deps.publish(stored);
    },
  };
}
