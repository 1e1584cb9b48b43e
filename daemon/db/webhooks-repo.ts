// Webhooks and their outbox (webhook_deliveries): rows in, rows out. When to send and what a reply
// does to a row is the delivery worker's rule (webhooks/delivery-worker.ts); this module only stores.
import { sql } from "kysely";
import { chunks, onPostgres } from "./batches.js";
import type { Executor } from "./store.js";
import type { VaultEventRow, VaultRow } from "./schema-chain.js";
import type { DeliveryRow, NewWebhook, WebhookRow } from "./schema-webhooks.js";

export async function insertWebhook(db: Executor, row: NewWebhook): Promise<void> {
  await db.insertInto("webhooks").values(row).execute();
}

/** The owner's webhooks, oldest first. */
export function webhooksOf(db: Executor, owner: string): Promise<WebhookRow[]> {
  return db.selectFrom("webhooks").selectAll().where("owner", "=", owner).orderBy("created_at").orderBy("id").execute();
}

export async function countWebhooks(db: Executor, owner: string): Promise<number> {
  const row = await db.selectFrom("webhooks").select((eb) => eb.fn.countAll().as("n")).where("owner", "=", owner).executeTakeFirst();
  return Number(row?.n ?? 0);
}

export function findWebhook(db: Executor, id: string): Promise<WebhookRow | undefined> {
  return db.selectFrom("webhooks").selectAll().where("id", "=", id).executeTakeFirst();
}

/** Removes the webhook and its deliveries; false when there was none. */
export async function deleteWebhook(db: Executor, id: string): Promise<boolean> {
  await db.deleteFrom("webhook_deliveries").where("webhook_id", "=", id).execute();
  const r = await db.deleteFrom("webhooks").where("id", "=", id).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

/**
 * Event types a webhook that names none does not hear: they come every oracle cycle and every trade,
 * more than a chat channel can take (asked for by name, they are sent).
 */
export const QUIET_BY_DEFAULT: readonly string[] = ["BalanceUpdated", "Fill"];

const listed = (filter: string, value: string) => (JSON.parse(filter) as string[]).includes(value);
const takesEvent = (filter: string | null, type: string) => (filter === null ? !QUIET_BY_DEFAULT.includes(type) : listed(filter, type));
const takesVault = (filter: string | null, vault: string) => filter === null || listed(filter, vault);

/**
 * Writes one pending delivery per enabled webhook of the vault's parties whose filters take the event.
 * Call in the unit of work that inserted `event` (and only when it was new): the event and its
 * deliveries commit together or not at all. Answers how many were written.
 */
export function enqueueDeliveries(db: Executor, vault: VaultRow, event: VaultEventRow, nowMs: number): Promise<number> {
  return enqueueDeliveriesOf(db, [{ vault, event }], nowMs);
}

/**
 * enqueueDeliveries for many new events at once: one select of the webhooks of every party involved,
 * one multi-row insert (per thousand rows), whatever the number of vaults.
 */
export async function enqueueDeliveriesOf(
  db: Executor, items: ReadonlyArray<{ vault: VaultRow; event: VaultEventRow }>, nowMs: number,
): Promise<number> {
  const owners = [...new Set(items.flatMap(({ vault }) => [vault.investor, vault.trader]))];
  const hooksOf = new Map<string, Array<{ id: string; events: string | null; vaults: string | null }>>();
  for (const part of chunks(owners)) {
    const hooks = await db.selectFrom("webhooks").select(["id", "owner", "events", "vaults"])
      .where("owner", "in", part)
      .where("enabled", "=", 1)
      .execute();
    for (const h of hooks) hooksOf.set(h.owner, [...(hooksOf.get(h.owner) ?? []), h]);
  }
  const rows = items.flatMap(({ vault, event }) => [...new Set([vault.investor, vault.trader])]
    .flatMap((owner) => hooksOf.get(owner) ?? [])
    .filter((h) => takesEvent(h.events, event.type) && takesVault(h.vaults, vault.address))
    .map((h) => ({
      id: `${h.id}.${event.id}`, webhook_id: h.id, event_id: event.id, vault: vault.address, event_type: event.type,
      attempts: 0, next_attempt_at: nowMs, status: "pending" as const, created_at: nowMs,
    })));
  for (const part of chunks(rows)) {
    await db.insertInto("webhook_deliveries").values(part).onConflict((oc) => oc.column("id").doNothing()).execute();
  }
  return rows.length;
}

/** Whether any delivery is due and unclaimed (a read: the poll claims, a write, only when there is one). */
export async function anyDue(db: Executor, now: number, busy: string[]): Promise<boolean> {
  let q = db.selectFrom("webhook_deliveries").select("id")
    .where("status", "=", "pending").where("next_attempt_at", "<=", now)
    .where((eb) => eb.or([eb("claim_until", "is", null), eb("claim_until", "<", now)]));
  if (busy.length > 0) q = q.where("webhook_id", "not in", busy);
  return (await q.limit(1).executeTakeFirst()) !== undefined;
}

/**
 * Takes up to `limit` due deliveries for `claimer` until `until`, oldest due first, skipping those
 * another claimer holds and those of `busy` webhooks. One statement: the outer conditions are checked
 * again on each row as it is updated, so two daemons never both take one (on PostgreSQL the inner
 * select also skips rows another transaction has locked).
 */
export async function claimDue(
  db: Executor, opts: { claimer: string; now: number; until: number; limit: number; busy: string[] },
): Promise<DeliveryRow[]> {
  const { claimer, now, until, limit, busy } = opts;
  const free = (q: any) => q.where("status", "=", "pending").where("next_attempt_at", "<=", now)
    .where((eb: any) => eb.or([eb("claim_until", "is", null), eb("claim_until", "<", now)]));
  let inner = free(db.selectFrom("webhook_deliveries").select("id"));
  if (busy.length > 0) inner = inner.where("webhook_id", "not in", busy);
  inner = inner.orderBy("next_attempt_at").orderBy("event_id").limit(limit);
  if (onPostgres(db)) inner = inner.forUpdate().skipLocked();
  return free(db.updateTable("webhook_deliveries").set({ claimed_by: claimer, claim_until: until }).where("id", "in", inner))
    .returningAll()
    .execute() as Promise<DeliveryRow[]>;
}

/** Keeps a claim before a send; false when the row is no longer this claimer's to send. */
export async function renewClaim(db: Executor, id: string, claimer: string, until: number): Promise<boolean> {
  const r = await db.updateTable("webhook_deliveries").set({ claim_until: until })
    .where("id", "=", id).where("claimed_by", "=", claimer).where("status", "=", "pending")
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/**
 * Drops the claims of daemons known to be gone (their claimers are `<daemon id>/<run>`): what they
 * had taken is sent by another daemon now, not when the claims expire.
 */
export async function releaseClaimsOf(db: Executor, daemons: string[]): Promise<number> {
  if (daemons.length === 0) return 0;
  const r = await db.updateTable("webhook_deliveries").set({ claimed_by: null, claim_until: null })
    .where("status", "=", "pending")
    .where((eb) => eb.or(daemons.map((d) => eb("claimed_by", "like", `${d}/%`))))
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}

/** Drops every claim (a daemon alone on its SQLite file, at start: a claim left by a killed process). */
export async function releaseAllClaims(db: Executor): Promise<void> {
  await db.updateTable("webhook_deliveries").set({ claimed_by: null, claim_until: null }).where("claimed_by", "is not", null).execute();
}

export interface AttemptOutcome {
  status: DeliveryRow["status"];
  nextAttemptAt: number;
  lastStatus: number | null;
  latencyMs: number;
  error: string | null;
  deliveredAt: number | null;
}

/** Records one attempt's outcome and lets the claim go. */
export async function recordAttempt(db: Executor, id: string, o: AttemptOutcome): Promise<void> {
  await db.updateTable("webhook_deliveries").set({
    attempts: sql<number>`attempts + 1`, status: o.status, next_attempt_at: o.nextAttemptAt, last_status: o.lastStatus,
    latency_ms: o.latencyMs, error: o.error, delivered_at: o.deliveredAt, claimed_by: null, claim_until: null,
  }).where("id", "=", id).execute();
}

/** A 2xx: the endpoint works again. */
export async function markWorking(db: Executor, id: string): Promise<void> {
  await db.updateTable("webhooks").set({ failing_since: null }).where("id", "=", id).where("failing_since", "is not", null).execute();
}

/** A failure: remembers since when the endpoint fails; answers that time. */
export async function markFailing(db: Executor, id: string, now: number): Promise<number> {
  await db.updateTable("webhooks").set({ failing_since: now }).where("id", "=", id).where("failing_since", "is", null).execute();
  const row = await db.selectFrom("webhooks").select("failing_since").where("id", "=", id).executeTakeFirst();
  return row?.failing_since ?? now;
}

/** Turns a webhook off and ends its pending deliveries as failed. */
export async function disableWebhook(db: Executor, id: string, reason: string): Promise<void> {
  await db.updateTable("webhooks").set({ enabled: 0, disabled_reason: reason }).where("id", "=", id).execute();
  await db.updateTable("webhook_deliveries").set({ status: "failed", error: reason, claimed_by: null, claim_until: null })
    .where("webhook_id", "=", id).where("status", "=", "pending").execute();
}

/** Forgets finished deliveries (delivered or failed) created before `before`: the outbox does not grow forever. */
export async function pruneDeliveries(db: Executor, before: number): Promise<number> {
  const r = await db.deleteFrom("webhook_deliveries").where("status", "in", ["delivered", "failed"]).where("created_at", "<", before).executeTakeFirst();
  return Number(r.numDeletedRows);
}

/** Deliveries by status (the metrics scrape). */
export function countDeliveriesByStatus(db: Executor): Promise<Array<{ key: string; n: number }>> {
  return db.selectFrom("webhook_deliveries").select((eb) => ["status as key", eb.fn.countAll<number>().as("n")]).groupBy("status").execute();
}

/** The webhook's latest deliveries, newest event first. */
export function deliveriesOf(db: Executor, webhookId: string, limit: number): Promise<DeliveryRow[]> {
  return db.selectFrom("webhook_deliveries").selectAll().where("webhook_id", "=", webhookId)
    .orderBy("event_id", "desc").limit(limit).execute();
}

/** The stored event a delivery carries, with its vault's address. */
export function eventById(db: Executor, id: number): Promise<VaultEventRow | undefined> {
  return db.selectFrom("vault_events as e")
    .innerJoin("vaults as v", "v.num", "e.vault_num")
    .leftJoin("chain_txs as t", "t.id", "e.tx")
    .select(["e.id", "v.address as vault", "e.seq", "e.type", "t.hash as tx_hash", "e.log_index", "e.block_number", "e.time", "e.data"])
    .where("e.id", "=", id)
    .executeTakeFirst();
}

/** The vault's last BalanceUpdated before event `beforeId`: the reading a Paused event is told with. */
export function readingBefore(db: Executor, vaultNum: number, beforeId: number): Promise<{ data: string } | undefined> {
  return db.selectFrom("vault_events").select("data")
    .where("vault_num", "=", vaultNum).where("type", "=", "BalanceUpdated").where("id", "<", beforeId)
    .orderBy("id", "desc").limit(1).executeTakeFirst();
}
