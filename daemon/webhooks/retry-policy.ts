// What one attempt's reply does to a delivery and its webhook. Pure, so the schedule and the day
// rule are tested without waiting for them.
import type { OutboundResult } from "../alerts/outbound.js";
import type { AttemptOutcome } from "../db/webhooks-repo.js";

/** Waits after the 1st, 2nd, ... failed attempt; after the last, the delivery has failed. */
export const RETRY_DELAYS_MS = [10_000, 60_000, 10 * 60_000, 60 * 60_000, 6 * 60 * 60_000] as const;
/** A webhook whose deliveries have all failed for this long is disabled. */
export const DISABLE_AFTER_MS = 24 * 60 * 60_000;

export type Step =
  | { kind: "delivered" | "retry" | "failed"; outcome: AttemptOutcome; disable?: string }
  | { kind: "gone" };

export interface Attempt {
  /** This attempt's number (1 for the first). */
  attempts: number;
  result: OutboundResult;
  now: number;
  /** Since when the webhook fails (this failure included); null after a success. */
  failingSince: number | null;
}

export function afterAttempt({ attempts, result, now, failingSince }: Attempt): Step {
  const base = { lastStatus: result.status ?? null, latencyMs: result.latencyMs, error: result.error ?? null };
  const status = result.status;
  if (status !== undefined && status >= 200 && status < 300) {
    return { kind: "delivered", outcome: { ...base, error: null, status: "delivered", nextAttemptAt: now, deliveredAt: now } };
  }
  // 410 Gone: the receiver says this endpoint is retired (Slack and Discord answer it for a removed hook).
  if (status === 410) return { kind: "gone" };
  const delay = RETRY_DELAYS_MS[attempts - 1];
  const disable = failingSince !== null && now - failingSince >= DISABLE_AFTER_MS
    ? `every delivery failed for 24 hours (last: ${result.error ?? "no answer"}); register it again to turn it back on`
    : undefined;
  if (delay === undefined || disable) {
    return { kind: "failed", outcome: { ...base, status: "failed", nextAttemptAt: now, deliveredAt: null }, disable };
  }
  return { kind: "retry", outcome: { ...base, status: "pending", nextAttemptAt: now + delay, deliveredAt: null } };
}
