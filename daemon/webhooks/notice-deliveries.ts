// User notices (notices/user-notices.ts: ProposalSigned, AgentExpiring, AgentLapsed) through the
// webhooks outbox. A notice is addressed to one user, so it goes to that user's enabled webhooks
// whose event filter takes its type, whatever their vault filter (a proposal has no vault yet). Its
// outbox row has no vault and carries the notice's id where a vault event's row carries the event's;
// the delivery id `<webhook>.n<notice id>` cannot meet a vault event's `<webhook>.<event id>`.
import type { AlertMessage } from "../alerts/formats.js";
import type { NoticeSink } from "../notices/user-notices.js";
import { rowToNotice } from "../notices/user-notices.js";
import { noticeById } from "../db/user-notices-repo.js";
import type { Executor } from "../db/store.js";
import { describeNotice, type DescribableNotice } from "../events/describe-notice.js";

const takes = (filter: string | null, type: string) => filter === null || (JSON.parse(filter) as string[]).includes(type);

/** The sink to add to the user notices: one pending delivery per matching webhook, in the notice's transaction. */
export function noticeDeliveries(clock: () => number): NoticeSink {
  return async (trx, notice) => {
    const hooks = await trx.selectFrom("webhooks").select(["id", "events"]).where("owner", "=", notice.user).where("enabled", "=", 1).execute();
    const now = clock();
    const rows = hooks.filter((h) => takes(h.events, notice.type)).map((h) => ({
      id: `${h.id}.n${notice.id}`, webhook_id: h.id, event_id: notice.id, vault: null, event_type: notice.type,
      attempts: 0, next_attempt_at: now, status: "pending" as const, created_at: now,
    }));
    if (rows.length > 0) await trx.insertInto("webhook_deliveries").values(rows).onConflict((oc) => oc.column("id").doNothing()).execute();
  };
}

/** The message of a notice's delivery (its outbox row has no vault); undefined when the notice is gone. */
export async function noticeMessage(db: Executor, deliveryId: string, noticeId: number): Promise<AlertMessage | undefined> {
  const row = await noticeById(db, noticeId);
  if (!row) return undefined;
  const notice = rowToNotice(row);
  const told = describeNotice({ type: notice.type, user: notice.user, data: notice.data } as DescribableNotice);
  const vault = typeof notice.data.vault === "string" ? notice.data.vault : null;
  return {
    title: told.title,
    text: told.sentence,
    json: { deliveryId, eventId: null, noticeId: notice.id, vault, user: notice.user, event: { type: notice.type, time: notice.time, data: notice.data }, title: told.title, text: told.sentence },
  };
}
