// Heartbeats and leases of the daemons sharing this database. Every statement is atomic on its own
// (an upsert with a condition, an update with a condition), so two daemons racing for one lease
// cannot both win, on SQLite or PostgreSQL. Times are the caller's `now`: the database's clock.
import { sql } from "kysely";
import type { Executor } from "./database.js";

export async function heartbeat(db: Executor, id: string, now: number, info: string): Promise<void> {
  await db.insertInto("daemons").values({ id, started_at: now, heartbeat_at: now, info })
    .onConflict((oc) => oc.column("id").doUpdateSet({ heartbeat_at: now, info }))
    .execute();
}

/** Daemons whose heartbeat is newer than `since`. */
export async function liveDaemons(db: Executor, since: number): Promise<string[]> {
  return (await db.selectFrom("daemons").select("id").where("heartbeat_at", ">", since).orderBy("id").execute()).map((r) => r.id);
}

/** Every daemon on record, with what it said of itself at its last heartbeat. */
export async function daemonInfos(db: Executor): Promise<Array<{ id: string; info: string }>> {
  return db.selectFrom("daemons").select(["id", "info"]).execute();
}

/** Daemons known to be gone: their leases expire now and their heartbeats are forgotten, in one transaction. */
export async function reapDaemons(db: Executor, ids: string[], now: number): Promise<void> {
  if (ids.length === 0) return;
  await db.updateTable("leases").set({ expires_at: now }).where("holder", "in", ids).where("expires_at", ">", now).execute();
  await db.deleteFrom("daemons").where("id", "in", ids).execute();
}

export async function forgetDaemon(db: Executor, id: string): Promise<void> {
  await db.deleteFrom("daemons").where("id", "=", id).execute();
}

/**
 * Takes `key` when nobody holds it or its holder's lease expired, with a new epoch; undefined when
 * someone else holds it (or this holder does already: renew that instead).
 */
export async function acquireLease(db: Executor, key: string, holder: string, now: number, ttlMs: number): Promise<number | undefined> {
  const row = await db.insertInto("leases").values({ key, holder, epoch: 1, expires_at: now + ttlMs })
    .onConflict((oc) => oc.column("key")
      .doUpdateSet({ holder, epoch: sql<number>`leases.epoch + 1`, expires_at: now + ttlMs })
      .where("leases.expires_at", "<=", now))
    .returning("epoch")
    .executeTakeFirst();
  return row === undefined ? undefined : Number(row.epoch);
}

/** Extends every unexpired lease of `holder`; what it still holds, with each epoch. */
export async function renewLeases(db: Executor, holder: string, now: number, ttlMs: number): Promise<Map<string, number>> {
  const rows = await db.updateTable("leases").set({ expires_at: now + ttlMs })
    .where("holder", "=", holder).where("expires_at", ">", now)
    .returning(["key", "epoch"])
    .execute();
  return new Map(rows.map((r) => [r.key, Number(r.epoch)]));
}

/** Gives leases up at once (their epochs stay, so the next holder's is higher). */
export async function releaseLeases(db: Executor, holder: string, keys: string[], now: number): Promise<void> {
  if (keys.length === 0) return;
  await db.updateTable("leases").set({ expires_at: now }).where("holder", "=", holder).where("key", "in", keys).execute();
}

/** Of `keys`, those someone holds now (any holder). */
export async function heldKeys(db: Executor, keys: string[], now: number): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  const rows = await db.selectFrom("leases").select("key").where("key", "in", keys).where("expires_at", ">", now).execute();
  return new Set(rows.map((r) => r.key));
}

/** Every lease held now, by holder: what /healthz and /metrics report. */
export async function leaseCounts(db: Executor, prefix: string, now: number): Promise<Map<string, number>> {
  const rows = await db.selectFrom("leases").select(["holder", (eb) => eb.fn.countAll<number>().as("n")])
    .where("key", "like", `${prefix}%`).where("expires_at", ">", now)
    .groupBy("holder").execute();
  return new Map(rows.map((r) => [r.holder, Number(r.n)]));
}

/** Of `keys`, those `holder` holds now, with their epochs. */
export async function heldBy(db: Executor, holder: string, keys: string[], now: number): Promise<Map<string, number>> {
  if (keys.length === 0) return new Map();
  const rows = await db.selectFrom("leases").select(["key", "epoch"])
    .where("holder", "=", holder).where("key", "in", keys).where("expires_at", ">", now)
    .execute();
  return new Map(rows.map((r) => [r.key, Number(r.epoch)]));
}

/** The lease of the daemon that signs the operator's transactions on one chain (by its journal key). */
export const senderLeaseKey = (chain: string): string => `sender:${chain}`;

/** The database's clock in SQL (Unix ms), read when the statement runs: what a check inside a transaction compares with. */
const dbNowMs = sql<number>`(extract(epoch from clock_timestamp()) * 1000)::bigint`;

/**
 * Whether `holder` holds `key` under `epoch` now, by the database's clock; when it does, the row
 * stays locked until the caller's transaction ends, so nobody takes the lease (a new epoch) before
 * what the transaction writes under this one has committed. PostgreSQL only: a shared store's.
 */
export async function lockLease(trx: Executor, key: string, holder: string, epoch: number): Promise<boolean> {
  const row = await trx.selectFrom("leases").select("key")
    .where("key", "=", key).where("holder", "=", holder).where("epoch", "=", epoch)
    .where("expires_at", ">", dbNowMs)
    .forUpdate()
    .executeTakeFirst();
  return row !== undefined;
}
