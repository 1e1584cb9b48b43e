// Webhooks: POST/GET /api/webhooks, DELETE /api/webhooks/:id, POST .../test, GET .../deliveries.
import { z } from "zod";
import { ALERT_FORMATS } from "../../alerts/formats.js";
import { USER_NOTICE_TYPES, VAULT_EVENT_TYPES } from "../../events/event-types.js";
import type { WebhookService } from "../../webhooks/webhook-service.js";
import { defineRoute } from "../route.js";
import { address, integerParam } from "../schemas.js";
import * as R from "./webhook-responses.js";

const idParams = z.object({ id: z.string().regex(/^wh_[0-9a-f]{16}$/, "must be a webhook id (wh_ and 16 hex digits)") }).strict();

export function webhookRoutes(webhooks: WebhookService) {
  const errors = ["INVALID_INPUT", "UNAUTHENTICATED", "NOT_FOUND"] as const;
  return [
    defineRoute({
      method: "post", path: "/api/webhooks", tag: "webhooks", auth: true,
      summary: "Register an endpoint for the events of your vaults; the answer shows its signing secret this once",
      body: z.object({
        url: z.string().max(2048),
        format: z.enum(ALERT_FORMATS).default("json"),
        events: z.array(z.enum([...VAULT_EVENT_TYPES, ...USER_NOTICE_TYPES])).min(1).optional()
          .describe(`event types to send, vault events and notices to you (${USER_NOTICE_TYPES.join(", ")}); default: all but BalanceUpdated and Fill`),
        vaults: z.array(address).min(1).max(100).optional().describe("only these vaults; default: every vault you are a party to"),
      }).strict(),
      response: R.webhookCreated,
      errors: ["INVALID_INPUT", "UNAUTHENTICATED", "CONFLICT"],
      handler: async ({ body, user }) => ({ webhook: await webhooks.create(user.address, body) }),
    }),
    defineRoute({
      method: "get", path: "/api/webhooks", tag: "webhooks", auth: true,
      summary: "Your webhooks (without their secrets)",
      response: R.webhookList,
      errors: ["UNAUTHENTICATED"],
      handler: async ({ user }) => ({ webhooks: await webhooks.list(user.address) }),
    }),
    defineRoute({
      method: "delete", path: "/api/webhooks/:id", tag: "webhooks", auth: true, params: idParams,
      summary: "Remove a webhook and its deliveries",
      response: z.object({}),
      errors: [...errors],
      handler: async ({ params, user }) => {
        await webhooks.remove(user.address, params.id);
        return {};
      },
    }),
    defineRoute({
      method: "post", path: "/api/webhooks/:id/test", tag: "webhooks", auth: true, params: idParams, limit: "orders",
      summary: "Send a test message now and answer what the endpoint replied",
      response: R.webhookTestResult,
      errors: [...errors, "RATE_LIMITED"],
      handler: async ({ params, user }) => {
        const r = await webhooks.test(user.address, params.id);
        const ok = r.status !== undefined && r.status >= 200 && r.status < 300;
        return { result: {
          deliveryId: r.deliveryId, ok, statusCode: r.status ?? null, latencyMs: r.latencyMs, error: r.error ?? null, reply: r.replyExcerpt ?? null,
        } };
      },
    }),
    defineRoute({
      method: "get", path: "/api/webhooks/:id/deliveries", tag: "webhooks", auth: true, params: idParams,
      query: z.object({ limit: integerParam(z.number().int().min(1).max(200).default(50)) }).strict(),
      summary: "The webhook's latest deliveries, newest event first",
      response: R.webhookDeliveries,
      errors: [...errors],
      handler: async ({ params, query, user }) => ({ deliveries: await webhooks.deliveries(user.address, params.id, query.limit) }),
    }),
  ];
}
