// Several daemons on one database share the vaults out through leases (daemon/cluster/cluster.ts).
// Each "daemon" here is a cluster instance on the same store, ticking by hand on a shared clock, so
// every step is deterministic: the share-out, the hand-back when one joins, the takeover when one
// stops ticking, the fence that stops a daemon that lost a vault from writing for it, and one winner
// when two race for a lease.
import { test } from "uvu";
import * as assert from "uvu/assert";
import pino from "pino";
import { createCluster, type Cluster } from "../../daemon/cluster/cluster.js";
import { acquireLease } from "../../daemon/db/cluster-repo.js";
import { openStore } from "../../daemon/db/database.js";
import type { Store } from "../../daemon/db/store.js";
import { openTestStore, storeKind } from "../helpers/stores.js";

const TTL = 3_000;
const VAULTS = Array.from({ length: 10 }, (_, i) => `0x${String(i).padStart(40, "0")}`);

/** One database; on PostgreSQL each daemon on its own pool, as separate processes would be. */
async function world() {
  const base = await openTestStore();
  const stores: Store[] = [];
  let now = 1_000_000;
  let active = [...VAULTS];
  // SQLite: one connection per process (better-sqlite3 blocks the thread while another holds the lock).
  const connect = async () => {
    if (storeKind === "sqlite") return base.store;
    const s = await openStore(base.target);
    stores.push(s);
    return s;
  };
  const daemon = async (id: string, opts: { store?: Store; presence?: boolean } = {}) => {
    const store = opts.store ?? (await connect());
    return createCluster({
      db: store.db, work: store, now: async () => now, id, info: {}, chainKey: "31337",
      activeVaults: async () => active, settings: { leaseTtlMs: TTL, tickMs: 1_000 }, log: pino({ level: "silent" }),
      presence: opts.presence ? store.presence : undefined,
    });
  };
  return {
    connect, daemon,
    /** Daemons a and b after two rounds each: five vaults each, a the sender. */
    async sharing(): Promise<[Cluster, Cluster]> {
      const a = await daemon("a");
      const b = await daemon("b");
      for (const d of [a, b, a, b]) await d.tick();
      return [a, b];
    },
    advance: (ms: number) => void (now += ms),
    setActive: (list: string[]) => void (active = list),
    close: async () => {
      for (const s of stores) await s.close();
      await base.close();
    },
  };
}

const held = (c: Cluster) => VAULTS.filter((v) => c.holds(v));

test("one daemon holds every vault and the sender; a second gets half after the first hands them back", async () => {
  const w = await world();
  try {
    const a = await w.daemon("a");
    await a.tick();
    assert.equal(held(a), VAULTS);
    assert.ok(a.isSender());

    const b = await w.daemon("b");
    await b.tick();
    assert.equal(held(b), [], "nothing is free yet: a's leases have not expired");
    await a.tick(); // a sees two daemons and gives back what is over ceil(10 / 2)
    assert.is(held(a).length, 5);
    await b.tick();
    assert.is(held(b).length, 5);
    assert.equal([...held(a), ...held(b)].sort(), VAULTS, "together they cover every vault, none twice");
    assert.ok(a.isSender() && !b.isSender(), "the sender stays where it was");
    assert.equal(a.status(), { daemon: "a", vaultsHeld: 5, activeVaults: 10, liveDaemons: 2, sender: true });
  } finally {
    await w.close();
  }
});

test("a daemon that stops ticking loses its vaults and the sender to the survivor, under new epochs; its fence closes", async () => {
  const w = await world();
  try {
    const [a, b] = await w.sharing();
    const lost = held(a);
    const epochs = new Map(lost.map((v) => [v, a.epochOf(v)!]));
    assert.equal(await a.fence(lost), new Set(lost), "a may write while it holds them");

    // a is killed: no more ticks. Within the lease's time b cannot take anything.
    w.advance(TTL - 1);
    await b.tick();
    assert.is(held(b).length, 5);
    w.advance(2);
    await b.tick();
    assert.equal(held(b), VAULTS, "after the expiry b takes every vault");
    assert.ok(b.isSender(), "and the sender's lease");
    for (const v of lost) assert.ok(b.epochOf(v)! > epochs.get(v)!, `a new epoch for ${v}`);
    assert.equal(await a.fence(lost), new Set(), "a's balance writes for them are fenced off");
  } finally {
    await w.close();
  }
});

test("a daemon whose process is gone (its presence mark dropped) is taken over at the next round, before its leases expire", async () => {
  if (storeKind !== "postgres") return; // presence marks live on a shared database's sessions
  const w = await world();
  try {
    const own = { a: await w.connect(), b: await w.connect() };
    const a = await w.daemon("a", { store: own.a, presence: true });
    const b = await w.daemon("b", { store: own.b, presence: true });
    for (const d of [a, b, a, b]) await d.tick();
    assert.is(held(a).length, 5);
    await b.tick();
    assert.is(held(b).length, 5, "a live daemon's mark keeps its vaults its own");

    const reaped: string[][] = [];
    b.onReaped((gone) => reaped.push(gone));
    await own.a.close(); // the process dies: its sessions end, and the mark with them
    await b.tick();
    assert.equal(reaped, [["a"]], "told once, so what a holds besides leases (its webhook claims) is released too");
    assert.equal(held(b), VAULTS, "b takes every vault at once, with no clock advance");
    assert.ok(b.isSender(), "and the sender's lease");
    assert.is(b.status().liveDaemons, 1, "a no longer counts towards the share");
  } finally {
    await w.close();
  }
});

test("a stopped daemon hands its leases back at once; a closed vault's lease is given up", async () => {
  const w = await world();
  try {
    const [a, b] = await w.sharing();
    await a.stop();
    await b.tick();
    assert.equal(held(b), VAULTS, "no wait for an expiry after a clean stop");
    assert.ok(b.isSender());

    w.setActive(VAULTS.slice(1));
    await b.tick();
    assert.not.ok(b.holds(VAULTS[0]!), "a closed vault is no one's");
    assert.is(held(b).length, 9);
  } finally {
    await w.close();
  }
});

test("two daemons racing for one free lease: exactly one wins", async () => {
  const w = await world();
  try {
    const stores = await Promise.all(["a", "b", "c", "d"].map(() => w.connect()));
    const results = await Promise.all(stores.map((s, i) => s.write((trx) => acquireLease(trx, "vault:x", `d${i}`, 5_000, TTL))));
    assert.is(results.filter((r) => r !== undefined).length, 1);
    assert.equal(results.find((r) => r !== undefined), 1);
    const again = await stores[1]!.write((trx) => acquireLease(trx, "vault:x", "d1", 5_000 + TTL, TTL));
    assert.is(again, 2, "taken over after the expiry, under the next epoch");
  } finally {
    await w.close();
  }
});

test.run();
