// Users' webhooks and their outbox (migration 013). Times are Unix ms.
import type { Insertable, Selectable } from "kysely";

export interface WebhooksTable {
  id: string;
  /** The user who registered it (EIP-55 address). */
  owner: string;
  url: string;
  format: string;
  /** JSON array of event types; null: every type. */
  events: string | null;
  /** JSON array of vault addresses; null: every vault the owner is a party to. */
  vaults: string | null;
  secret_sealed: string;
  enabled: number;
  disabled_reason: string | null;
  failing_since: number | null;
  created_at: number;
}

export type DeliveryStatus = "pending" | "delivered" | "failed";

export interface WebhookDeliveriesTable {
  id: string;
  webhook_id: string;
  event_id: number;
  /** null: an event of no vault (a proposal's). */
  vault: string | null;
  event_type: string;
  attempts: number;
  next_attempt_at: number;
  status: DeliveryStatus;
  last_status: number | null;
  latency_ms: number | null;
  error: string | null;
  created_at: number;
  delivered_at: number | null;
  claimed_by: string | null;
  claim_until: number | null;
}

export interface WebhookTables {
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
}

export type WebhookRow = Selectable<WebhooksTable>;
export type NewWebhook = Insertable<WebhooksTable>;
export type DeliveryRow = Selectable<WebhookDeliveriesTable>;
