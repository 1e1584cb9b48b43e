// Webhooks: a registration, the list, a test send's reply and the deliveries of one.
import { z } from "zod";
import { ALERT_FORMATS } from "../../alerts/formats.js";
import { unixSeconds } from "../response-parts.js";

export const webhook = z.object({
  id: z.string(),
  url: z.string().meta({ description: "as registered; a Telegram bot token is shown as <redacted>" }),
  format: z.enum(ALERT_FORMATS),
  events: z.array(z.string()).meta({ description: "the event types sent" }),
  vaults: z.array(z.string()).nullable().meta({ description: "the vaults whose events are sent; null: every vault you are a party to" }),
  enabled: z.boolean(),
  disabledReason: z.string().nullable().meta({ description: "why the daemon turned it off (every delivery failed for 24 hours)" }),
  failingSince: unixSeconds.nullable().meta({ description: "since when every delivery fails; null while the last one succeeded" }),
  createdAt: unixSeconds,
});
export type Webhook = z.infer<typeof webhook>;

export const webhookCreated = z.object({
  webhook: webhook.extend({
    secret: z.string().meta({ description: "signs json deliveries (X-Tradevault-Signature); shown this once" }),
  }),
});
export const webhookList = z.object({ webhooks: z.array(webhook) });
export type WebhookList = z.infer<typeof webhookList>;

export const webhookTestResult = z.object({
  result: z.object({
    deliveryId: z.string(),
    ok: z.boolean().meta({ description: "the endpoint answered 2xx" }),
    statusCode: z.number().int().nullable().meta({ description: "what it answered; null: no answer (refused address, timeout, network)" }),
    latencyMs: z.number().int(),
    error: z.string().nullable(),
    reply: z.string().nullable().meta({ description: "the start of its reply's body" }),
  }),
});
export type WebhookTestResult = z.infer<typeof webhookTestResult>;

export const webhookDelivery = z.object({
  id: z.string().meta({ description: "sent as X-Tradevault-Delivery: the same for every attempt of one event" }),
  eventId: z.number().int(),
  eventType: z.string(),
  vault: z.string().nullable(),
  attempts: z.number().int(),
  status: z.enum(["pending", "delivered", "failed"]),
  statusCode: z.number().int().nullable().meta({ description: "the last attempt's HTTP status" }),
  latencyMs: z.number().int().nullable(),
  error: z.string().nullable(),
  nextAttemptAt: unixSeconds.nullable(),
  deliveredAt: unixSeconds.nullable(),
});
export type WebhookDelivery = z.infer<typeof webhookDelivery>;
export const webhookDeliveries = z.object({ deliveries: z.array(webhookDelivery) });
export type WebhookDeliveries = z.infer<typeof webhookDeliveries>;
