// A call's chain events applied together (vault-events.ts applyChainEvents): the same vault rows,
// event rows and webhook deliveries as applying them one by one did, seqs dense when some are stored
// already, each event once and no change undone when two daemons apply overlapping sets at once, and
// a number of statements that does not grow with the number of vaults. Runs on both stores.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { sql, type KyselyPlugin } from "kysely";
import { openStore } from "../../daemon/db/database.js";
import type { VaultEventRow, VaultRow } from "../../daemon/db/schema-chain.js";
import type { Executor, Store } from "../../daemon/db/store.js";
import * as repo from "../../daemon/db/vaults-repo.js";
import { enqueueDeliveries, insertWebhook } from "../../daemon/db/webhooks-repo.js";
import type { ChainEventInput } from "../../daemon/chain/event-rows.js";
import { appendDaemonEvent, applyChainEvents, effect } from "../../daemon/vaults/vault-events.js";
import { EVENTS_CHANNEL } from "../../daemon/db/notices.js";
import { only, openTestStore, rows, storeKind } from "../helpers/stores.js";
import { randomAddress, randomHash, vaultRow } from "../helpers/rows.js";
import { waitUntil } from "../helpers/util.js";

const NOW = 1_700_100_000; // s: what vault rows hold
const NOW_MS = NOW * 1000 + 250; // the daemon's clock: what the outbox holds
const T = 1_700_000_500;

/** The per-event path this module replaced, kept here as the reference the batched one must match. */
async function applyOneByOne(trx: Executor, events: ChainEventInput[], nowMs: number): Promise<VaultEventRow[]> {
  const inserted: VaultEventRow[] = [];
  for (const e of events) {
    if (e.type === "VaultCreated") throw new Error("the reference takes vault events only");
    const v = await repo.findVault(trx, e.vault);
    if (!v) continue;
    const row = await repo.insertEvent(trx, v, e);
    if (!row) continue;
    const current = (await repo.findVault(trx, v.address))!;
    await repo.updateVault(trx, v.address, { ...effect(current, e), updated_at: Math.floor(nowMs / 1000) });
    await enqueueDeliveries(trx, v, row, nowMs);
    inserted.push(row);
  }
  return inserted;
}

let block = 10;
const ev = (vault: string, type: string, data: Record<string, unknown>, txHash = randomHash(), logIndex = 0): ChainEventInput =>
  ({ vault, type, txHash, logIndex, blockNumber: block++, time: T + block, data });
const reading = (vault: string, balance: string, observedAt: number, tx?: string, log?: number) => ev(vault, "BalanceUpdated", {
  balance, peakBalance: "12000000000", dayStartBalance: "10000000000", observedAt, drawdownBps: 0, dailyDrawdownBps: 0,
}, tx, log);

/** What a store holds, without the ids its sequences handed out (a refused insert spends one on PostgreSQL). */
async function contents(store: Store) {
  const vaults = await rows(store, sql<VaultRow>`select * from vaults order by address`);
  const events = await repo.eventsAfterId(store.db, 0, 100_000);
  const key = new Map(events.map((e) => [e.id, `${e.vault}#${e.seq}`]));
  const deliveries = (await rows(store, sql<{ webhook_id: string; event_id: number; vault: string; event_type: string; status: string; next_attempt_at: number }>`
    select webhook_id, event_id, vault, event_type, status, next_attempt_at from webhook_deliveries`))
    .map(({ event_id, ...d }) => ({ ...d, event: key.get(event_id) })).sort((a, b) => `${a.webhook_id}${a.event}`.localeCompare(`${b.webhook_id}${b.event}`));
  return { vaults, events: events.map(({ id: _, ...e }) => e), deliveries };
}

/** Same vaults and webhooks on a store: rows made once, inserted wherever asked. */
function scenario(n: number) {
  const vaults = Array.from({ length: n }, () => vaultRow());
  const [a, b] = [vaults[0]!, vaults[1]!];
  const hooks = [
    { id: "loud", owner: a.investor, events: null, vaults: null, enabled: 1 },
    { id: "readings", owner: a.trader, events: JSON.stringify(["BalanceUpdated", "Funded"]), vaults: null, enabled: 1 },
    { id: "off", owner: b.investor, events: null, vaults: null, enabled: 0 },
    { id: "other-vault", owner: b.trader, events: null, vaults: JSON.stringify([a.address]), enabled: 1 },
    ...vaults.slice(2).map((v, i) => ({ id: `all-${i}`, owner: v.investor, events: JSON.stringify(["BalanceUpdated"]), vaults: null, enabled: 1 })),
  ];
  const install = (store: Store) => store.write(async (trx) => {
    for (const v of vaults) await repo.insertVault(trx, v);
    for (const h of hooks) await insertWebhook(trx, { ...h, url: "http://127.0.0.1:9/", format: "json", secret_sealed: "x", created_at: 1 });
  });
  return { vaults, install };
}

test("a call with many vaults' events leaves the same vault rows, events and deliveries as the per-event path", async () => {
  const [x, y] = [await openTestStore(), await openTestStore()];
  try {
    const { vaults, install } = scenario(12);
    await install(x.store);
    await install(y.store);
    const [a, b] = [vaults[0]!, vaults[1]!];
    const stored = ev(b.address, "Funded", { from: b.investor, amount: "5" });
    for (const s of [x.store, y.store]) await s.write((trx) => applyOneByOne(trx, [stored], NOW_MS - 1000));
    const receipt = randomHash();
    const events = [
      ...vaults.map((v, i) => reading(v.address, String(9_000_000_000 + i), 1_700_000_100, receipt, i)),
      ev(a.address, "Funded", { from: a.investor, amount: "1000000" }),
      ev(a.address, "Funded", { from: a.investor, amount: "250000" }),
      ev(a.address, "Withdrawn", { party: a.trader, amount: "7" }),
      ev(a.address, "Withdrawn", { party: a.investor, amount: "11" }),
      ev(a.address, "Paused", { reason: 2 }),
      reading(a.address, "1", 1_700_000_050), // older than the call's reading: stored, changes nothing
      ev(b.address, "Paused", { reason: 1 }),
      ev(b.address, "Unpaused", { by: b.trader }),
      stored, // stored already: skipped
      ev(randomAddress(), "Funded", { amount: "3" }), // no such vault: skipped
      ev(b.address, "Closed", { by: b.trader, finalBalance: "9000000001", profit: "-999999999", traderShare: "0", investorShare: "9000000001" }),
    ];
    events.push(events[13]!); // the same log twice in one call: once
    const one = await x.store.write((trx) => applyOneByOne(trx, events, NOW_MS));
    const batch = await y.store.write((trx) => applyChainEvents(trx, events, NOW_MS));
    const plain = (r: VaultEventRow[]) => r.map(({ id: _, ...e }) => e);
    assert.equal(plain(batch), plain(one), "the same rows returned, in the same order");
    assert.is(batch.length, events.length - 3);
    assert.equal(batch.map((r) => r.id), [...batch.map((r) => r.id)].sort((p, q) => p - q), "ids in the given order");
    const [want, got] = [await contents(x.store), await contents(y.store)];
    assert.equal(got, want);
    // And what the rows say, so the reference itself is checked too.
    const va = got.vaults.find((v) => v.address === a.address)!;
    assert.equal([va.current_balance, va.funded_total, va.paid_trader, va.paid_investor, va.paused, va.pause_reason, va.event_count, va.updated_at],
      ["9000000000", "1250000", "7", "11", 1, 2, 7, NOW]);
    assert.ok(got.deliveries.length > 0 && got.deliveries.every((d) => d.next_attempt_at === NOW_MS), "the outbox in ms, the vault row in seconds");
    const vb = got.vaults.find((v) => v.address === b.address)!;
    assert.equal([vb.current_balance, vb.paused, vb.closed, vb.final_balance, vb.funded_total, vb.event_count], ["9000000001", 0, 1, "9000000001", "5", 5]);
    assert.equal(got.events.filter((e) => e.vault === b.address).map((e) => e.seq).sort((p, q) => p - q), [1, 2, 3, 4, 5]);
    // Checked by hand as well: the reference queues its deliveries with the same repository code.
    const typesTo = (hook: string) => got.deliveries.filter((d) => d.webhook_id === hook).map((d) => d.event_type).sort();
    assert.equal(typesTo("loud"), ["Funded", "Funded", "Paused", "Withdrawn", "Withdrawn"], "the investor's: every type but the quiet ones");
    assert.equal(typesTo("readings"), ["BalanceUpdated", "BalanceUpdated", "Funded", "Funded"], "the trader's: the types it names");
    assert.equal(typesTo("off"), [], "a disabled webhook");
    assert.equal(typesTo("other-vault"), [], "a webhook of another vault");
    assert.is(got.deliveries.filter((d) => d.webhook_id.startsWith("all-")).length, vaults.length - 2);
  } finally {
    await x.close();
    await y.close();
  }
});

test("a daemon event at the daemon's clock (ms): the vault row takes its seconds, the outbox its ms", async () => {
  const t = await openTestStore();
  try {
    const v = vaultRow();
    await t.store.write(async (trx) => {
      await repo.insertVault(trx, v);
      await insertWebhook(trx, { id: "h", owner: v.investor, events: null, vaults: null, enabled: 1, url: "http://127.0.0.1:9/", format: "json", secret_sealed: "x", created_at: 1 });
    });
    const row = await t.store.write((trx) => appendDaemonEvent(trx, { vault: v.address, type: "BalanceMismatch", time: NOW, data: {} }, NOW_MS));
    assert.ok(row);
    assert.is((await repo.findVault(t.store.db, v.address))!.updated_at, NOW);
    const queued = await rows(t.store, sql<{ created_at: number; next_attempt_at: number }>`select created_at, next_attempt_at from webhook_deliveries`);
    assert.equal(queued.map((d) => [Number(d.created_at), Number(d.next_attempt_at)]), [[NOW_MS, NOW_MS]]);
  } finally {
    await t.close();
  }
});

test("a call where some events are stored already numbers the new ones on, densely, and returns only them; again, nothing", async () => {
  const t = await openTestStore();
  try {
    const v = vaultRow();
    await t.store.write((trx) => repo.insertVault(trx, v));
    const funded = (amount: string) => ev(v.address, "Funded", { from: v.investor, amount });
    const [old1, old2, new1, new2] = [funded("1"), funded("2"), funded("4"), funded("8")];
    await t.store.write((trx) => applyChainEvents(trx, [old1, old2], NOW_MS - 1000 * 10));
    const got = await t.store.write((trx) => applyChainEvents(trx, [old1, new1, old2, new2], NOW_MS));
    assert.equal(got.map((r) => [r.seq, r.log_index, r.tx_hash]), [[3, 0, new1.txHash], [4, 0, new2.txHash]]);
    const before = await repo.findVault(t.store.db, v.address);
    assert.equal([before!.funded_total, before!.event_count], ["15", 4]);
    assert.equal(await t.store.write((trx) => applyChainEvents(trx, [new2, old1, new1], NOW_MS + 1000 * 99)), []);
    assert.equal(await repo.findVault(t.store.db, v.address), before, "a second application writes nothing (updated_at included)");
    assert.equal((await repo.vaultEventsPage(t.store.db, v.address, 10, 0)).rows.map((r) => r.seq), [4, 3, 2, 1]);
  } finally {
    await t.close();
  }
});

/** Lock waits on the database: a transaction waiting for a row another holds. */
async function lockWaits(store: Store): Promise<number> {
  const r = await sql<{ n: number }>`select count(*) as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`.execute(store.db);
  return Number(r.rows[0]!.n);
}

test("two daemons applying overlapping event sets at once store each event once, seqs dense, sums right", async () => {
  const t = await openTestStore();
  const other = storeKind === "postgres" ? await openStore(t.target) : t.store;
  try {
    const vaults = Array.from({ length: 6 }, () => vaultRow());
    await t.store.write(async (trx) => {
      for (const v of vaults) await repo.insertVault(trx, v);
    });
    const funded = (v: (typeof vaults)[number], amount: number) => ev(v.address, "Funded", { from: v.investor, amount: String(amount) });
    const shared = vaults.slice(1, 5).map((v, i) => funded(v, 100 + i));
    const first = [...vaults.slice(0, 4).map((v, i) => funded(v, 10 + i)), ...shared];
    // The second lists its vaults the other way round: only the lock order keeps the two apart.
    const second = [...[...vaults.slice(2)].reverse().map((v, i) => funded(v, 1_000 + i)), ...[...shared].reverse()];
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let firstWrote!: () => void;
    const wrote = new Promise<void>((r) => (firstWrote = r));
    // On PostgreSQL two plain transactions, without the store's write lock: what is proved is the
    // row locks' doing. On SQLite one daemon's writes queue for its one connection.
    const run = (s: Store, fn: (trx: Executor) => Promise<VaultEventRow[]>) =>
      storeKind === "postgres" ? s.db.transaction().execute(fn) : s.write(fn);
    const a = run(t.store, async (trx) => {
      const r = await applyChainEvents(trx, first, NOW_MS);
      firstWrote();
      await held;
      return r;
    });
    await wrote;
    const b = run(other, (trx) => applyChainEvents(trx, second, NOW_MS + 1000));
    b.catch(() => undefined);
    try {
      if (storeKind === "postgres") await waitUntil(async () => (await lockWaits(t.store)) >= 1, { what: "the second daemon to wait for the first's row locks" });
    } finally {
      release();
    }
    const [ra, rb] = [await a, await b];
    assert.is(ra.length, first.length);
    assert.equal(rb.map((r) => r.tx_hash), second.slice(0, 4).map((e) => e.txHash), "the second stores only what the first had not");
    const all = await repo.eventsAfterId(t.store.db, 0, 1_000);
    assert.is(all.length, new Set([...first, ...second].map((e) => e.txHash)).size, "each event once");
    for (const [i, v] of vaults.entries()) {
      const row = (await repo.findVault(t.store.db, v.address))!;
      const mine = [...first, ...second].filter((e, k, list) => e.vault === v.address && list.findIndex((o) => o.txHash === e.txHash) === k);
      const sum = mine.reduce((s, e) => s + BigInt(String(e.data.amount)), 0n).toString();
      assert.equal([row.funded_total, row.event_count], [sum, mine.length], `vault ${i}`);
      assert.equal(all.filter((e) => e.vault === v.address).map((e) => e.seq).sort((p, q) => p - q), mine.map((_, k) => k + 1), `vault ${i} seqs`);
    }
  } finally {
    if (other !== t.store) await other.close();
    await t.close();
  }
});

test("a reading that crosses, stored by two daemons at once (a receipt and an indexer): one LimitNear, after the reading, seqs dense", async () => {
  const t = await openTestStore();
  const other = storeKind === "postgres" ? await openStore(t.target) : t.store;
  try {
    const v = vaultRow();
    await t.store.write((trx) => repo.insertVault(trx, v));
    // 21% below the day's start: 84% of the 25% daily limit. The same log, twice, at once.
    const crossing = reading(v.address, "7900000000", 1_700_000_100);
    const run = (s: Store) => (storeKind === "postgres" ? s.db.transaction().execute((trx) => applyChainEvents(trx, [crossing], NOW_MS)) : s.write((trx) => applyChainEvents(trx, [crossing], NOW_MS)));
    const [a, b] = await Promise.all([run(t.store), run(other)]);
    assert.equal([...a, ...b].map((r) => r.type).sort(), ["BalanceUpdated", "LimitNear"], "one daemon stored both, the other nothing");
    const stored = (await repo.vaultEventsPage(t.store.db, v.address, 10, 0)).rows.reverse();
    assert.equal(stored.map((r) => [r.seq, r.type]), [[1, "BalanceUpdated"], [2, "LimitNear"]]);
    assert.equal(JSON.parse(stored[1]!.data), { limit: "daily", level: 80, drawdownBps: 2100, limitPercentBps: 2500 });
    const row = (await repo.findVault(t.store.db, v.address))!;
    assert.equal([row.event_count, row.daily_limit_warned, row.max_limit_warned], [2, 80, 0]);
    // The next reading, deeper but short of 90%: nothing more.
    await t.store.write((trx) => applyChainEvents(trx, [reading(v.address, "7800000000", 1_700_000_200)], NOW_MS));
    assert.is((await repo.findVault(t.store.db, v.address))!.event_count, 3);
  } finally {
    if (other !== t.store) await other.close();
    await t.close();
  }
});

only("postgres", test)("a call's events wake the other daemons with one notice at commit, carrying the newest id; a rolled-back call sends none", async () => {
  const t = await openTestStore();
  const other = await openStore(t.target);
  try {
    const heard: number[] = [];
    const stop = t.store.listen(EVENTS_CHANNEL, (id) => heard.push(Number(id)));
    const vaults = Array.from({ length: 3 }, () => vaultRow());
    await other.write(async (trx) => {
      for (const v of vaults) await repo.insertVault(trx, v);
    });
    const call = () => vaults.map((v) => ev(v.address, "Funded", { from: v.investor, amount: "1" }));
    // The listener's connection opens in the background: a first call proves it is listening.
    await waitUntil(async () => {
      await other.write((trx) => applyChainEvents(trx, call(), NOW_MS));
      return heard.length > 0;
    }, { what: "a notice for a committed call" });
    let rolledBack: number[] = [];
    await other.write(async (trx) => {
      rolledBack = (await applyChainEvents(trx, call(), NOW_MS)).map((r) => r.id);
      throw new Error("rolled back");
    }).catch(() => undefined);
    assert.is(rolledBack.length, 3);
    const ids = (await other.write((trx) => applyChainEvents(trx, call(), NOW_MS))).map((r) => r.id);
    // Notices arrive in commit order: once the last commit's is here, a rolled-back one would be too.
    await waitUntil(() => heard.includes(ids[2]!), { what: "the committed call's notice" });
    assert.not.ok(heard.includes(ids[0]!) || heard.includes(ids[1]!), "one notice a call, with its newest id");
    assert.not.ok(rolledBack.some((id) => heard.includes(id)), "none for the rolled-back call");
    stop();
  } finally {
    await other.close();
    await t.close();
  }
});

/** Counts the statements run through the executor it wraps (raw SQL included). */
function statementCounter(): { plugin: KyselyPlugin; count: () => number } {
  let n = 0;
  return {
    plugin: {
      transformQuery: (args) => args.node,
      transformResult: async (args) => {
        n++;
        return args.result;
      },
    },
    count: () => n,
  };
}

test("the statements of a call do not grow with the number of vaults", async () => {
  const counts: number[] = [];
  for (const n of [5, 300]) {
    const t = await openTestStore();
    try {
      const { vaults, install } = scenario(n);
      await install(t.store);
      const receipt = randomHash();
      // Each reading 21% below the day's start of 10,000: 84% of the 25% daily limit, so every vault
      // records a LimitNear too, and those statements are in the count.
      const events = vaults.flatMap((v, i) => [
        reading(v.address, String(7_900_000_000 + i), 1_700_000_100, receipt, 2 * i),
        ev(v.address, "Funded", { from: v.investor, amount: "9" }, receipt, 2 * i + 1),
      ]);
      const counter = statementCounter();
      const rowsOut = await t.store.write((trx) => applyChainEvents(trx.withPlugin(counter.plugin), events, NOW_MS));
      assert.is(rowsOut.length, 3 * n);
      assert.is(rowsOut.filter((r) => r.type === "LimitNear").length, n);
      const deliveries = await rows(t.store, sql<{ n: number }>`select count(*) as n from webhook_deliveries`);
      assert.ok(Number(deliveries[0]!.n) >= n, "deliveries were written: their statements are in the count");
      counts.push(counter.count());
    } finally {
      await t.close();
    }
  }
  assert.is(counts[1], counts[0], `statements for 5 and 300 vaults: ${counts.join(", ")}`);
  // Ten, and on PostgreSQL the event ids' lock before each of the two inserts of events.
  assert.ok(counts[0]! <= (storeKind === "postgres" ? 12 : 10), `${counts[0]} statements`);
});

test.run();
