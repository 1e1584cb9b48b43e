// Dense numbers allocated by two writers at once: vault numbers, each vault's event sequence and
// trade sequence; and sums kept on the vault's row (the projection of its Funded events). On PostgreSQL the writers are two stores on one database (two daemons), and the
// second is made to start while the first holds its transaction open, so a number read by one and
// written by the other would collide. On SQLite one daemon's writers queue for the one connection.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { hexlify, randomBytes } from "ethers";
import { sql } from "kysely";
import { heartbeat } from "../../daemon/db/cluster-repo.js";
import { openStore } from "../../daemon/db/database.js";
import type { NewVault } from "../../daemon/db/schema-chain.js";
import type { Executor, Store } from "../../daemon/db/store.js";
import { appendFills, tradePage, type NewFill } from "../../daemon/db/vault-trades-repo.js";
import { findVault, insertEvent, insertVault, vaultEventsPage, type NewEvent } from "../../daemon/db/vaults-repo.js";
import { applyChainEvents } from "../../daemon/vaults/vault-events.js";
import { openTestStore, storeKind, type TestStore } from "../helpers/stores.js";
import { waitUntil } from "../helpers/util.js";
import { vaultRow } from "../helpers/rows.js";

const address = () => hexlify(randomBytes(20));
const hash = () => hexlify(randomBytes(32));

const vault = (addr: string): NewVault => vaultRow(addr);

const event = (logIndex: number, txHash = hash()): NewEvent => ({
  type: "Funded", txHash, logIndex, blockNumber: 7, time: 1_700_000_100, data: { amount: "1" },
});

const fill = (i: number): NewFill => ({
  tid: 5_000_000_000 + i, oid: 9_000_000_000 + i, symbol: "BTC", side: "buy", size: "0.01", price: "60000", pnl: "0", fee: "0.1",
  timeMs: 1_800_000_000_000 + i,
});

/** Transactions waiting for a lock another transaction on this database holds. */
async function lockWaits(store: Store): Promise<number> {
  const r = await sql<{ n: number }>`select count(*) as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`.execute(store.db);
  return r.rows[0]!.n;
}

/**
 * `first` runs in a unit of work on one store and keeps it open until `second`, in a unit of work on
 * the other store, is waiting for it (PostgreSQL); then both commit. Resolves to both results.
 */
async function overlapping<A, B>(t: TestStore, first: (trx: Executor) => Promise<A>, second: (trx: Executor) => Promise<B>): Promise<[A, B]> {
  const other = storeKind === "postgres" ? await openStore(t.target) : t.store;
  try {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let done!: () => void;
    const worked = new Promise<void>((r) => (done = r));
    const a = t.store.write(async (trx) => {
      const value = await first(trx);
      done();
      await held;
      return value;
    });
    await worked;
    const b = other.write(second);
    b.catch(() => undefined); // awaited below; a failure must not go unhandled meanwhile
    try {
      if (storeKind === "postgres") await waitUntil(async () => (await lockWaits(t.store)) >= 1, { what: "the second writer to wait for the first" });
    } finally {
      release(); // also when the wait failed: the first writer must end, or the store never closes
    }
    return [await a, await b];
  } finally {
    if (other !== t.store) await other.close();
  }
}

test("two writers creating vaults at once get different numbers", async () => {
  const t = await openTestStore();
  try {
    const [a, b] = [address(), address()];
    await overlapping(t, (trx) => insertVault(trx, vault(a)), (trx) => insertVault(trx, vault(b)));
    const nums = [(await findVault(t.store.db, a))!.num, (await findVault(t.store.db, b))!.num];
    assert.equal(nums, [1, 2]);
  } finally {
    await t.close();
  }
});

test("two writers adding events to one vault at once number them 1 and 2; a duplicate from the second gives its number back", async () => {
  const t = await openTestStore();
  try {
    const v = address();
    await t.store.write((trx) => insertVault(trx, vault(v)));
    // Each reads the vault first, as the event projection does: the row it holds is stale by the time it inserts.
    const add = (e: NewEvent) => async (trx: Executor) => insertEvent(trx, (await findVault(trx, v))!, e);
    const [x, y] = await overlapping(t, add(event(0)), add(event(1)));
    assert.equal([x!.seq, y!.seq], [1, 2]);
    const same = event(2);
    const [z, dup] = await overlapping(t, add(same), add(same));
    assert.is(z!.seq, 3);
    assert.is(dup, undefined);
    assert.is((await findVault(t.store.db, v))!.event_count, 3);
    assert.equal((await vaultEventsPage(t.store.db, v, 10, 0)).rows.map((r) => r.seq), [3, 2, 1]);
  } finally {
    await t.close();
  }
});

test("two writers recording one vault's fills at once number them densely", async () => {
  const t = await openTestStore();
  try {
    const [x, y] = await overlapping(
      t,
      (trx) => appendFills(trx, "V", "A", [fill(1), fill(2)]),
      (trx) => appendFills(trx, "V", "A", [fill(3), fill(2)]), // fill 2 is the first writer's already
    );
    assert.equal([...x, ...y].map((r) => [r.tid - 5_000_000_000, r.seq]), [[1, 1], [2, 2], [3, 3]]);
    const page = await tradePage(t.store.db, "V", { limit: 10, offset: 0 });
    assert.equal([page.total, page.rows.map((r) => r.seq)], [3, [3, 2, 1]]);
    // Again, now that the sequence's lock row exists (taking it then writes nothing on SQLite).
    const [u, w] = await overlapping(
      t,
      (trx) => appendFills(trx, "V", "A", [fill(4), fill(3)]),
      (trx) => appendFills(trx, "V", "A", [fill(5)]), // nothing in common with the first: only the locks order them
    );
    assert.equal([...u, ...w].map((r) => [r.tid - 5_000_000_000, r.seq]), [[4, 4], [5, 5]]);
  } finally {
    await t.close();
  }
});

test("two writers applying Funded events to one vault at once add both amounts", async () => {
  const t = await openTestStore();
  try {
    const v = address();
    await t.store.write((trx) => insertVault(trx, vault(v)));
    const funded = (amount: string) => (trx: Executor) =>
      applyChainEvents(trx, [{ vault: v, type: "Funded", txHash: hash(), logIndex: 0, blockNumber: 8, time: 1_700_000_200, data: { amount } }], 1_700_000_200_000);
    await overlapping(t, funded("1000000"), funded("250000"));
    assert.is((await findVault(t.store.db, v))!.funded_total, "1250000");
  } finally {
    await t.close();
  }
});

test("events written by two daemons at once become visible in id order: a reader past an id never misses a smaller one", async () => {
  const t = await openTestStore();
  try {
    const [a, b] = [address(), address()];
    await t.store.write(async (trx) => {
      await insertVault(trx, vault(a));
      await insertVault(trx, vault(b));
    });
    const order: string[] = [];
    await overlapping(
      t,
      async (trx) => {
        await insertEvent(trx, (await findVault(trx, a))!, event(0));
        order.push("first wrote");
      },
      async (trx) => {
        await insertEvent(trx, (await findVault(trx, b))!, event(0));
        order.push("second wrote");
      },
    );
    // The second writer could not number its event before the first committed (the event ids' lock),
    // so the ids are in commit order; without it, the second would commit a larger id first.
    assert.equal(order, ["first wrote", "second wrote"]);
    const ids = await sql<{ id: number; vault_num: number }>`select id, vault_num from vault_events order by id`.execute(t.store.db);
    const [na, nb] = [(await findVault(t.store.db, a))!.num, (await findVault(t.store.db, b))!.num];
    assert.equal(ids.rows.map((r) => r.vault_num), [na, nb]);
  } finally {
    await t.close();
  }
});

test("writers of unrelated rows on two daemons do not wait for each other: a stalled transaction holds only its own rows", async () => {
  const t = await openTestStore();
  const other = storeKind === "postgres" ? await openStore(t.target) : undefined;
  try {
    if (!other) return; // one writer per SQLite file: nothing runs side by side
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let wrote!: () => void;
    const written = new Promise<void>((r) => (wrote = r));
    // A daemon stalls inside its unit of work, after its first write (a stopped process's connection).
    const stalled = t.store.write(async (trx) => {
      await heartbeat(trx, "stalled", 1, "{}");
      wrote();
      await held;
    });
    await written;
    try {
      const second = other.write((trx) => heartbeat(trx, "healthy", 1, "{}")).then(() => "committed" as const);
      // Either the second commits, or it is seen waiting for a lock the stalled one holds.
      const outcome = await waitUntil(async () => {
        const settled = await Promise.race([second, Promise.resolve(undefined)]);
        if (settled) return settled;
        return (await lockWaits(other)) > 0 ? ("waited" as const) : undefined;
      }, { what: "the second writer to commit or wait" });
      assert.is(outcome, "committed");
    } finally {
      release();
      await stalled;
    }
  } finally {
    await other?.close();
    await t.close();
  }
});

test("two daemons' writers caught in a deadlock both commit: the server's victim is rolled back whole and run again", async () => {
  const t = await openTestStore();
  const other = storeKind === "postgres" ? await openStore(t.target) : undefined;
  try {
    if (!other) return; // one writer per SQLite file: no deadlock
    const gate = () => {
      let open!: () => void;
      return { passed: new Promise<void>((r) => (open = r)), open: () => open() };
    };
    const [x, y] = [gate(), gate()];
    // Each takes one row, waits for the other to take its row, then asks for the other's.
    const a = t.store.write(async (trx) => {
      await heartbeat(trx, "x", 1, "{}");
      x.open();
      await y.passed;
      await heartbeat(trx, "y", 2, "{}");
    });
    const b = other.write(async (trx) => {
      await heartbeat(trx, "y", 3, "{}");
      y.open();
      await x.passed;
      await heartbeat(trx, "x", 4, "{}");
    });
    await Promise.all([a, b]);
    const rows = await sql<{ id: string }>`select id from daemons where id in ('x', 'y') order by id`.execute(t.store.db);
    assert.equal(rows.rows.map((r) => r.id), ["x", "y"]);
  } finally {
    await other?.close();
    await t.close();
  }
});

test.run();
