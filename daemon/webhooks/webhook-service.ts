// A user's webhooks: register (checked, secret sealed), list, remove, test, and the deliveries of
// one. Another user's webhook is NOT_FOUND on every call, never FORBIDDEN: its id says nothing.
import { randomBytes } from "node:crypto";
import { isAlertFormat, parseAlertUrl, redactUrl, type AlertFormat } from "../alerts/formats.js";
import { checkDestination, type OutboundResult, type Resolver } from "../alerts/outbound.js";
import type { DeliveryRow, WebhookRow } from "../db/schema-webhooks.js";
import type { Executor, UnitOfWork } from "../db/store.js";
import { lockName } from "../db/name-lock.js";
import * as vaultsRepo from "../db/vaults-repo.js";
import * as repo from "../db/webhooks-repo.js";
import { AppError } from "../errors.js";
import { USER_NOTICE_TYPES, VAULT_EVENT_TYPES } from "../events/event-types.js";
import type { SecretBox } from "../lib/secret-box.js";
import { newSecret } from "./signature.js";
import type { DeliveryWorker } from "./delivery-worker.js";
import { testMessage } from "./webhook-message.js";

export const MAX_WEBHOOKS_PER_USER = 20;
/**
 * What a webhook hears when it names no events: every event but the two that come every oracle
 * cycle or every trade (BalanceUpdated, Fill), which a chat channel cannot take; ask for them by name.
 */
export const DEFAULT_EVENTS: readonly string[] = [...VAULT_EVENT_TYPES.filter((t) => !repo.QUIET_BY_DEFAULT.includes(t)), ...USER_NOTICE_TYPES];

export interface NewWebhookInput {
  url: string;
  format: AlertFormat;
  events?: string[];
  vaults?: string[];
}

export interface WebhookServiceDeps {
  db: Executor;
  work: UnitOfWork;
  box: SecretBox;
  worker: Pick<DeliveryWorker, "sendNow">;
  clock: () => number;
  allowPrivate: boolean;
  resolve?: Resolver;
}

export type WebhookService = ReturnType<typeof createWebhookService>;

export function rowToWebhook(w: WebhookRow) {
  return {
    id: w.id,
    url: redactUrl(w.url),
    format: w.format as AlertFormat,
    events: w.events === null ? [...DEFAULT_EVENTS] : (JSON.parse(w.events) as string[]),
    vaults: w.vaults === null ? null : (JSON.parse(w.vaults) as string[]),
    enabled: w.enabled === 1,
    disabledReason: w.disabled_reason,
    failingSince: w.failing_since === null ? null : Math.floor(w.failing_since / 1000),
    createdAt: Math.floor(w.created_at / 1000),
  };
}

export function rowToDelivery(d: DeliveryRow) {
  return {
    id: d.id, eventId: d.event_id, eventType: d.event_type, vault: d.vault, attempts: d.attempts, status: d.status,
    statusCode: d.last_status, latencyMs: d.latency_ms, error: d.error,
    nextAttemptAt: d.status === "pending" ? Math.floor(d.next_attempt_at / 1000) : null,
    deliveredAt: d.delivered_at === null ? null : Math.floor(d.delivered_at / 1000),
  };
}

const invalid = (field: string, message: string) => new AppError("INVALID_INPUT", `${field}: ${message}`, { details: [{ field, message }] });

export function createWebhookService(deps: WebhookServiceDeps) {
  const { db, work, box, clock } = deps;
  const outbound = { allowPrivate: deps.allowPrivate, resolve: deps.resolve };

  /** The user's webhook, or NOT_FOUND (also for another user's). */
  async function own(owner: string, id: string): Promise<WebhookRow> {
    const row = await repo.findWebhook(db, id);
    if (!row || row.owner !== owner) throw new AppError("NOT_FOUND", `no webhook ${id}`);
    return row;
  }

  /** The vault filter: vaults the user is a party to, as the vaults table spells them. */
  async function checkVaults(owner: string, vaults: string[]): Promise<string[]> {
    const mine = new Set((await vaultsRepo.vaultsOfParty(db, owner)).map((v) => v.address));
    vaults.forEach((v, i) => {
      if (!mine.has(v)) throw invalid(`body.vaults.${i}`, "not a vault you are a party to");
    });
    return [...new Set(vaults)];
  }

  return {
    async create(owner: string, input: NewWebhookInput) {
      if (!isAlertFormat(input.format)) throw invalid("body.format", "unknown format");
      const url = parseAlertUrl(input.url, input.format, "body.url");
      await checkDestination(url, outbound, "body.url");
      const vaults = input.vaults === undefined ? null : await checkVaults(owner, input.vaults);
      const secret = newSecret();
      const row: WebhookRow = {
        id: `wh_${randomBytes(8).toString("hex")}`, owner, url: url.href, format: input.format,
        events: input.events === undefined ? null : JSON.stringify([...new Set(input.events)]),
        vaults: vaults === null ? null : JSON.stringify(vaults),
        secret_sealed: box.seal(secret), enabled: 1, disabled_reason: null, failing_since: null, created_at: clock(),
      };
      await work.write(async (trx) => {
        // Two registrations at once (two daemons on PostgreSQL) take turns: both cannot pass the cap.
        await lockName(trx, `webhooks.${owner}`);
        if ((await repo.countWebhooks(trx, owner)) >= MAX_WEBHOOKS_PER_USER) {
          throw new AppError("CONFLICT", `at most ${MAX_WEBHOOKS_PER_USER} webhooks per user: remove one first`);
        }
        await repo.insertWebhook(trx, row);
      });
      return { ...rowToWebhook(row), secret };
    },

    async list(owner: string) {
      return (await repo.webhooksOf(db, owner)).map(rowToWebhook);
    },

    async remove(owner: string, id: string): Promise<void> {
      await own(owner, id);
      await work.write((trx) => repo.deleteWebhook(trx, id));
    },

    /** Sends a test message now (the URL checked again, as at every send) and answers the endpoint's reply. */
    async test(owner: string, id: string): Promise<OutboundResult & { deliveryId: string }> {
      const hook = await own(owner, id);
      const now = clock();
      const deliveryId = `${hook.id}.test-${now}`;
      return { ...(await deps.worker.sendNow(hook, deliveryId, testMessage(deliveryId, now))), deliveryId };
    },

    async deliveries(owner: string, id: string, limit: number) {
      await own(owner, id);
      return (await repo.deliveriesOf(db, id, limit)).map(rowToDelivery);
    },
  };
}
