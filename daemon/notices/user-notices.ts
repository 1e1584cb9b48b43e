// Notices addressed to one user rather than to a vault's parties: a proposal the other party signed
// (a proposal has no vault yet), an agent key about to expire (the investor's business). Each is
// stored once under a key saying what it is about, in the caller's transaction, so a retried request
// or a second daemon's sweep records nothing twice. What delivers them (the webhooks outbox) is given
// as a sink at construction: it is called in the same transaction, only for a notice that is new, as the outbox is
// for a new vault event, so a notice is neither lost nor sent twice.
import type { Executor } from "../db/store.js";
import type { UserNoticeRow } from "../db/schema.js";
import * as repo from "../db/user-notices-repo.js";
import type { UserNoticeType } from "../events/event-types.js";
import type { UserNoticeDataOf } from "../http/responses.js";

export interface NoticeInput<K extends UserNoticeType = UserNoticeType> {
  /** The address the notice is for (EIP-55). */
  user: string;
  type: K;
  /** Stable, per what the notice is about: the same key twice is one notice. */
  key: string;
  data: UserNoticeDataOf<K>;
}

/** A stored notice as the API renders it. */
export interface UserNotice {
  /** Dense and increasing: what an outbox row refers to it by. */
  id: number;
  key: string;
  user: string;
  type: UserNoticeType;
  /** Unix seconds. */
  time: number;
  data: Record<string, unknown>;
}

/** Called in the notice's transaction for each new notice; throwing rolls the notice back with it. */
export type NoticeSink = (trx: Executor, notice: UserNotice) => Promise<void>;

export function rowToNotice(row: UserNoticeRow): UserNotice {
  return { id: row.id, key: row.key, user: row.user, type: row.type as UserNoticeType, time: Math.floor(row.created_at / 1000), data: JSON.parse(row.data) as Record<string, unknown> };
}

export function createUserNotices(deps: { db: Executor; clock: () => number; sinks?: NoticeSink[] }) {
  const sinks = deps.sinks ?? [];
  return {
    /** GET /api/notices: the user's notices, newest first. */
    async list(user: string, page: { limit: number; offset: number }): Promise<{ notices: UserNotice[]; total: number; hasMore: boolean }> {
      const [rows, total] = await Promise.all([repo.noticesFor(deps.db, user, page.limit, page.offset), repo.countNotices(deps.db, user)]);
      return { notices: rows.map(rowToNotice), total, hasMore: page.offset + rows.length < total };
    },
    /**
     * Records a notice for `user` inside `trx` (call it in the transaction of what it tells of);
     * returns it when new, undefined when its key was already recorded.
     */
    async notifyParty<K extends UserNoticeType>(trx: Executor, input: NoticeInput<K>): Promise<UserNotice | undefined> {
      const row = await repo.insertNotice(trx, { key: input.key, user: input.user, type: input.type, data: JSON.stringify(input.data), created_at: deps.clock() });
      if (!row) return undefined;
      const notice = rowToNotice(row);
      for (const sink of sinks) await sink(trx, notice);
      return notice;
    },
  };
}

export type UserNotices = ReturnType<typeof createUserNotices>;
