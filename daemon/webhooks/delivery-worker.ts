// Sends the outbox (webhook_deliveries). Due rows are claimed for a while by this process (so of
// several daemons sharing a database, one sends each), queued per webhook, and each webhook's queue
// is sent one delivery at a time: a hanging endpoint holds only its own queue (outbound.ts caps each
// send at 10 s), never another's, and nothing here is awaited by the oracle or a request. Woken at
// once when an event is stored (wake()), polled as a backstop. At least once: a daemon killed after
// a send and before recording it sends again (its claim expires, or, alone on SQLite, at restart);
// the delivery id lets the receiver drop the repeat.
import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import { renderMessage, type AlertFormat } from "../alerts/formats.js";
import { postOutbound, type OutboundResult, type Resolver } from "../alerts/outbound.js";
import type { DeliveryRow, WebhookRow } from "../db/schema-webhooks.js";
import type { Store } from "../db/store.js";
import * as repo from "../db/webhooks-repo.js";
import type { SecretBox } from "../lib/secret-box.js";
import { signatureHeader } from "./signature.js";
import { deliveryMessage } from "./webhook-message.js";
import { noticeMessage } from "./notice-deliveries.js";
import { afterAttempt } from "./retry-policy.js";

/** How long a claim holds before another daemon may take the row (renewed before each send). */
const CLAIM_MS = 2 * 60_000;
const CLAIM_BATCH = 100;
/** Finished deliveries are kept this long (GET .../deliveries shows them), then pruned, once an hour. */
const KEEP_FINISHED_MS = 30 * 86_400_000;
const PRUNE_EVERY_MS = 3_600_000;

export interface DeliveryWorkerDeps {
  store: Store;
  box: SecretBox;
  clock: () => number;
  log: Logger;
  allowPrivate: boolean;
  resolve?: Resolver;
  pollMs?: number;
  /**
   * The daemon these claims are made for, with several daemons on one database: claims are then
   * `<daemon>/<run>`, and the others release them at once when they find this daemon gone.
   */
  daemon?: string;
}

export type DeliveryWorker = ReturnType<typeof createDeliveryWorker>;

export function createDeliveryWorker(deps: DeliveryWorkerDeps) {
  const { store, clock, log } = deps;
  const claimer = deps.daemon ? `${deps.daemon}/${randomUUID()}` : randomUUID();
  const queues = new Map<string, DeliveryRow[]>();
  const drains = new Set<Promise<void>>();
  let timer: NodeJS.Timeout | undefined;
  let pruner: NodeJS.Timeout | undefined;
  let pruning: Promise<unknown> | undefined;
  let claiming: Promise<void> | undefined;
  let again = false;
  let stopped = true;

  /** Claims what is due and queues it; a wake during a round runs one more round after it. */
  function wake(): void {
    if (stopped) return;
    if (claiming) {
      again = true;
      return;
    }
    claiming = claimRound().catch((err) => log.warn({ err }, "claiming webhook deliveries failed; the next poll tries again"))
      .finally(() => {
        claiming = undefined;
        if (again) (again = false, wake());
      });
  }

  async function claimRound(): Promise<void> {
    const now = clock();
    const busy = [...queues.keys()];
    if (!(await repo.anyDue(store.db, now, busy))) return;
    // Relaxed: a claim lost to a power cut only lets the row be claimed again (SQLite drops claims at start anyway).
    const rows = await store.relaxed((trx) => repo.claimDue(trx, { claimer, now, until: now + CLAIM_MS, limit: CLAIM_BATCH, busy }));
    // RETURNING keeps no order: each webhook's queue goes out in the order its rows fell due, events in order.
    rows.sort((a, b) => a.next_attempt_at - b.next_attempt_at || a.event_id - b.event_id);
    for (const row of rows) queue(row);
  }

  function queue(row: DeliveryRow): void {
    const q = queues.get(row.webhook_id);
    if (q) return void q.push(row);
    queues.set(row.webhook_id, [row]);
    const drain = drainQueue(row.webhook_id).finally(() => drains.delete(drain));
    drains.add(drain);
  }

  async function drainQueue(webhookId: string): Promise<void> {
    const q = queues.get(webhookId)!;
    while (q.length > 0 && !stopped) {
      const row = q.shift()!;
      await sendOne(row).catch((err) => log.warn({ err, delivery: row.id }, "a webhook delivery could not be sent or recorded; it is tried again"));
    }
    queues.delete(webhookId);
    wake(); // its next due rows were left out of claims while it was busy
  }

  async function sendOne(row: DeliveryRow): Promise<void> {
    if (!(await store.relaxed((trx) => repo.renewClaim(trx, row.id, claimer, clock() + CLAIM_MS)))) return;
    const hook = await repo.findWebhook(store.db, row.webhook_id);
    if (!hook || hook.enabled !== 1) return;
    // A row with no vault carries a user notice (notice-deliveries.ts), not a vault event.
    const message = row.vault === null ? await noticeMessage(store.db, row.id, row.event_id) : await deliveryMessage(store.db, row.id, row.event_id);
    const result: OutboundResult = message
      ? await send(hook, row.id, message)
      : { latencyMs: 0, error: "the event is no longer stored" };
    await record(hook, row, result);
  }

  async function send(hook: WebhookRow, deliveryId: string, message: Parameters<typeof renderMessage>[2]): Promise<OutboundResult> {
    const url = new URL(hook.url);
    const rendered = renderMessage(hook.format as AlertFormat, url, message);
    const headers = hook.format === "json"
      ? { ...rendered.headers, ...signedHeaders(deps.box.open(hook.secret_sealed), rendered.body, deliveryId, clock()) }
      : rendered.headers;
    return postOutbound(url, { headers, body: rendered.body }, { allowPrivate: deps.allowPrivate, resolve: deps.resolve });
  }

  async function record(hook: WebhookRow, row: DeliveryRow, result: OutboundResult): Promise<void> {
    const now = clock();
    await store.write(async (trx) => {
      const failingSince = result.status !== undefined && result.status >= 200 && result.status < 300 ? null : await repo.markFailing(trx, hook.id, now);
      const step = afterAttempt({ attempts: row.attempts + 1, result, now, failingSince });
      if (step.kind === "gone") return void (await repo.deleteWebhook(trx, hook.id));
      await repo.recordAttempt(trx, row.id, step.outcome);
      if (step.kind === "delivered") await repo.markWorking(trx, hook.id);
      if (step.disable) await repo.disableWebhook(trx, hook.id, step.disable);
    });
    if (result.error) log.info({ webhook: hook.id, delivery: row.id, error: result.error }, "webhook delivery failed");
  }

  function prune(): void {
    pruning = store.relaxed((trx) => repo.pruneDeliveries(trx, clock() - KEEP_FINISHED_MS))
      .catch((err) => log.warn({ err }, "pruning finished webhook deliveries failed; the next hour tries again"));
  }

  return {
    wake,
    /** Daemons found gone (their presence mark dropped): their claims are released and sent from here or another daemon now. */
    async releaseClaimsOf(daemons: string[]): Promise<void> {
      const n = await store.relaxed((trx) => repo.releaseClaimsOf(trx, daemons));
      if (n > 0) log.info({ daemons, deliveries: n }, "webhook deliveries claimed by daemons that are gone: released");
      wake();
    },
    /** Starts polling; alone on SQLite, first lets go of claims a killed process left. */
    async start(): Promise<void> {
      if (store.kind === "sqlite") await store.write((trx) => repo.releaseAllClaims(trx));
      stopped = false;
      timer = setInterval(wake, deps.pollMs ?? 1_000);
      timer.unref();
      pruner = setInterval(prune, PRUNE_EVERY_MS);
      pruner.unref();
      prune();
      wake();
    },
    /** Stops claiming; sends in flight finish (each is capped in time). */
    async stop(): Promise<void> {
      stopped = true;
      if (timer) clearInterval(timer);
      if (pruner) clearInterval(pruner);
      await claiming;
      await pruning;
      await Promise.all([...drains]);
    },
    /** Sends one message to a webhook now, signed like a delivery; records nothing. */
    sendNow: send,
  };
}

/** X-Tradevault-Signature and X-Tradevault-Delivery. */
export function signedHeaders(secret: string, body: string, deliveryId: string, nowMs: number): Record<string, string> {
  return { "X-Tradevault-Signature": signatureHeader(secret, body, Math.floor(nowMs / 1000)), "X-Tradevault-Delivery": deliveryId };
}
