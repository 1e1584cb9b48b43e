// The outbox's claims (db/webhooks-repo.ts): of two stores writing one database (two daemons on
// PostgreSQL; on SQLite, one daemon per file, two claimers on the one store), each due delivery is taken by exactly one; a
// claim holds until it expires; a webhook whose queue is busy here is left out; a claim another
// holder took cannot be renewed.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { openStore } from "../../daemon/db/database.js";
import * as repo from "../../daemon/db/webhooks-repo.js";
import type { Store } from "../../daemon/db/store.js";
import { openTestStore, storeKind, type TestStore } from "../helpers/stores.js";

let t: TestStore;
let other: Store;

test.before(async () => {
  t = await openTestStore();
  other = storeKind === "postgres" ? await openStore(t.target) : t.store;
});
test.after(async () => {
  if (other !== t?.store) await other?.close();
  await t?.close();
});

async function pending(prefix: string, n: number, at: number, webhooks = 1) {
  const rows = Array.from({ length: n }, (_, i) => ({
    id: `${prefix}.${i}`, webhook_id: `${prefix}-wh${i % webhooks}`, event_id: i + 1, vault: "0xV", event_type: "Paused",
    attempts: 0, next_attempt_at: at, status: "pending" as const, created_at: at,
  }));
  await t.store.write((trx) => trx.insertInto("webhook_deliveries").values(rows).execute());
}

test("two claimers racing over 200 due deliveries take each exactly once", async () => {
  await pending("race", 200, 1_000, 40);
  const taken: Record<string, string[]> = { a: [], b: [] };
  const drain = async (store: Store, who: "a" | "b") => {
    for (let round = 0; round < 100; round++) {
      const rows = await store.write((trx) => repo.claimDue(trx, { claimer: who, now: 2_000, until: 60_000, limit: 7, busy: [] }));
      if (rows.length === 0) return;
      taken[who]!.push(...rows.map((r) => r.id));
    }
    throw new Error("claims never ran out: claimed rows are claimed again");
  };
  await Promise.all([drain(t.store, "a"), drain(other, "b"), drain(t.store, "a"), drain(other, "b")]);
  const all = [...taken.a!, ...taken.b!];
  assert.is(all.length, 200);
  assert.is(new Set(all).size, 200, "no delivery taken twice");
  const rows = await t.store.db.selectFrom("webhook_deliveries").select(["id", "claimed_by"]).where("id", "like", "race.%").execute();
  for (const r of rows) assert.ok(taken[r.claimed_by as "a" | "b"]!.includes(r.id), r.id);
});

test("the claims of a daemon found gone are released at once, and only its own", async () => {
  await pending("gone", 4, 1_000, 4);
  const byGone = await t.store.write((trx) => repo.claimDue(trx, { claimer: "host-a1/run-1", now: 1_000, until: 120_000, limit: 2, busy: [] }));
  const byLive = await other.write((trx) => repo.claimDue(trx, { claimer: "host-a10/run-7", now: 1_000, until: 120_000, limit: 10, busy: [] }));
  assert.is(byGone.length + byLive.length, 4);
  assert.is(await other.write((trx) => repo.releaseClaimsOf(trx, ["host-a1"])), byGone.length, "host-a1's claims, not host-a10's");
  const retaken = await other.write((trx) => repo.claimDue(trx, { claimer: "host-b/run-2", now: 2_000, until: 120_000, limit: 10, busy: [] }));
  assert.equal(retaken.map((r) => r.id).sort(), byGone.map((r) => r.id).sort(), "taken by a survivor long before the claims' expiry");
});

test("a claim holds until it expires, is renewed only by its holder, and busy webhooks and future rows are left", async () => {
  await pending("exp", 3, 1_000, 3);
  await pending("later", 1, 9_000);
  const first = await t.store.write((trx) => repo.claimDue(trx, { claimer: "a", now: 1_000, until: 5_000, limit: 10, busy: ["exp-wh2"] }));
  assert.equal(first.map((r) => r.id).sort(), ["exp.0", "exp.1"]);
  const meanwhile = await other.write((trx) => repo.claimDue(trx, { claimer: "b", now: 4_999, until: 9_999, limit: 10, busy: [] }));
  assert.equal(meanwhile.map((r) => r.id), ["exp.2"], "held claims stay; the busy one is free to others");
  const expired = await other.write((trx) => repo.claimDue(trx, { claimer: "b", now: 5_001, until: 9_999, limit: 10, busy: [] }));
  assert.equal(expired.map((r) => r.id).sort(), ["exp.0", "exp.1"]);
  assert.is(await t.store.write((trx) => repo.renewClaim(trx, "exp.0", "a", 20_000)), false, "a's claim was taken over");
  assert.is(await other.write((trx) => repo.renewClaim(trx, "exp.0", "b", 20_000)), true);
  await repo.recordAttempt(t.store.db, "exp.0", { status: "delivered", nextAttemptAt: 5_001, lastStatus: 200, latencyMs: 3, error: null, deliveredAt: 5_001 });
  const after = await t.store.write((trx) => repo.claimDue(trx, { claimer: "a", now: 30_000, until: 40_000, limit: 10, busy: [] }));
  assert.equal(after.map((r) => r.id).sort(), ["exp.1", "exp.2", "later.0"], "a delivered row is never claimed again");
});

test("finished deliveries are pruned after their time, pending ones never; counts by status", async () => {
  await pending("prune", 3, 100);
  await repo.recordAttempt(t.store.db, "prune.0", { status: "delivered", nextAttemptAt: 100, lastStatus: 200, latencyMs: 1, error: null, deliveredAt: 100 });
  await repo.recordAttempt(t.store.db, "prune.1", { status: "failed", nextAttemptAt: 100, lastStatus: 500, latencyMs: 1, error: "answered 500", deliveredAt: null });
  const before = new Map((await repo.countDeliveriesByStatus(t.store.db)).map((r) => [r.key, Number(r.n)]));
  assert.is(await t.store.write((trx) => repo.pruneDeliveries(trx, 100)), 0, "nothing created before 100");
  assert.is(await t.store.write((trx) => repo.pruneDeliveries(trx, 101)), 2);
  const left = await t.store.db.selectFrom("webhook_deliveries").select("id").where("id", "like", "prune.%").execute();
  assert.equal(left.map((r) => r.id), ["prune.2"]);
  const after = new Map((await repo.countDeliveriesByStatus(t.store.db)).map((r) => [r.key, Number(r.n)]));
  assert.is(after.get("delivered") ?? 0, before.get("delivered")! - 1);
  assert.is(after.get("failed") ?? 0, before.get("failed")! - 1);
});

test.run();
