// The audit trail in few bytes (migration 007): events refer to vaults by number and to transactions
// by id, a balance reading keeps its fields positionally, a signed transaction is stored deflated.
// An older database migrates with its ids, sequences and data intact; what comes out is unchanged.
// PostgreSQL has no older database (its baseline already has this layout): the upgrade and the byte
// count are SQLite's; what the repositories hand out is held on both stores.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { join } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { hexlify, randomBytes } from "ethers";
import { Kysely, Migrator, SqliteDialect, sql } from "kysely";
import { insertJournal } from "../../daemon/db/chain-repo.js";
import { openStore } from "../../daemon/db/database.js";
import { packEventData, unpackEventData } from "../../daemon/db/event-data.js";
import { sqliteMigrations } from "../../daemon/db/migrations/index.js";
import { sqliteHandle } from "../../daemon/db/sqlite-store.js";
import type { Store } from "../../daemon/db/store.js";
import { eventsAfter, findVault, insertEvent, insertVault, vaultEventsPage } from "../../daemon/db/vaults-repo.js";
import type { NewVault } from "../../daemon/db/schema-chain.js";
import { only, openTestStore } from "../helpers/stores.js";
import { tempDir } from "../helpers/util.js";
import { allEvents, journalRows } from "../helpers/store-reads.js";
import { vaultRow } from "../helpers/rows.js";

const address = () => hexlify(randomBytes(20));
const hash = () => hexlify(randomBytes(32));

const vault = (addr: string): NewVault => vaultRow(addr);

const reading = (balance: bigint, observedAt: number) => ({
  balance: balance.toString(), peakBalance: "10000000000", dayStartBalance: "10000000000", observedAt,
  drawdownBps: Number(((10_000_000_000n - balance) * 10_000n) / 10_000_000_000n), dailyDrawdownBps: 0,
});

/** A database as the release before migration 007 left it. */
async function migratedTo(path: string, name: string): Promise<void> {
  const db = new Kysely<any>({ dialect: new SqliteDialect({ database: new BetterSqlite3(path) }) });
  const { error } = await new Migrator({ db, provider: { getMigrations: async () => sqliteMigrations } }).migrateTo(name);
  if (error) throw error;
  return db.destroy();
}

only("sqlite", test)("a database from before migration 007 keeps its event ids, sequences, hashes, data and journal", async () => {
  const dir = tempDir();
  const path = join(dir.path, "old.db");
  await migratedTo(path, "2026-11-23-006-chain-snapshots");
  const old = new BetterSqlite3(path);
  const [a, b] = [address(), address()];
  const { address: _a, ...rest } = vault(a);
  const insertOld = old.prepare(`insert into vaults (address, ${Object.keys(rest).join(", ")}) values (${["?", ...Object.keys(rest).map(() => "?")].join(", ")})`);
  insertOld.run(a, ...Object.values(rest));
  insertOld.run(b, ...Object.values(vault(b)).slice(1));
  const tx1 = hash();
  const tx2 = hash();
  const ev = old.prepare("insert into vault_events (id, vault, seq, type, tx_hash, log_index, block_number, time, data) values (?, ?, ?, ?, ?, ?, ?, ?, ?)");
  ev.run(3, a, 1, "BalanceUpdated", tx1, 0, 10, 100, JSON.stringify(reading(9_000_000_000n, 99)));
  ev.run(4, b, 1, "BalanceUpdated", tx1, 1, 10, 100, JSON.stringify(reading(9_500_000_000n, 99)));
  ev.run(7, a, 2, "Paused", tx2, 0, 11, 101, JSON.stringify({ reason: 1, maxDrawdown: true, dailyDrawdown: false }));
  ev.run(9, a, 3, "Flattened", null, null, null, 102, JSON.stringify({ canceledOrders: 1, positions: [] }));
  old.prepare("update vaults set event_count = 3 where address = ?").run(a);
  old.prepare("update vaults set event_count = 1 where address = ?").run(b);
  const raw = hexlify(randomBytes(300));
  old.prepare("insert into tx_journal (chain, hash, nonce, raw, purpose, status, created_at, updated_at) values ('31337', ?, 0, ?, 'mint', 'confirmed', 1, 1)").run(tx2, raw);
  const before = old.prepare("select id, vault, seq, type, tx_hash, log_index, block_number, time, data from vault_events order by id").all();
  old.close();

  const store = await openStore(path);
  try {
    assert.equal(await allEvents(store.db), before);
    assert.equal([(await findVault(store.db, a))!.num, (await findVault(store.db, b))!.num], [1, 2]);
    assert.equal(unpackEventData("BalanceUpdated", (await allEvents(store.db))[0]!.data), reading(9_000_000_000n, 99), "an old reading reads as it was");
    assert.equal((await journalRows(store.db, "31337"))[0]!.raw, raw, "an old journal row (hex text) reads as it was");
    assert.equal((await eventsAfter(store.db, [a], 3)).map((e) => e.id), [7, 9]);
    assert.equal((await vaultEventsPage(store.db, a, 2, 0)).rows.map((e) => e.seq), [3, 2]);

    // The next event continues both sequences: ids never go back (SSE clients resume from them).
    const next = await store.write(async (trx) => insertEvent(trx, (await findVault(trx, b))!, {
      type: "BalanceUpdated", txHash: hash(), logIndex: 0, blockNumber: 12, time: 103, data: reading(9_400_000_000n, 102),
    }));
    assert.equal([next!.id, next!.seq, next!.vault], [10, 2, b]);
  } finally {
    await store.db.destroy();
    dir.remove();
  }
});

test("the same chain event twice is stored once; a new vault gets the next number", async () => {
  const { store, close } = await openTestStore();
  try {
    const [a, b] = [address(), address()];
    await store.write((trx) => insertVault(trx, vault(a)));
    await store.write((trx) => insertVault(trx, vault(b)));
    await store.write((trx) => insertVault(trx, vault(a))); // a second VaultCreated of the same vault
    assert.equal([(await findVault(store.db, a))!.num, (await findVault(store.db, b))!.num], [1, 2]);
    const e = { type: "BalanceUpdated", txHash: hash(), logIndex: 4, blockNumber: 5, time: 6, data: reading(9_000_000_000n, 5) };
    const first = await store.write(async (trx) => insertEvent(trx, (await findVault(trx, a))!, e));
    const again = await store.write(async (trx) => insertEvent(trx, (await findVault(trx, a))!, e));
    assert.ok(first);
    assert.is(again, undefined);
    assert.is((await findVault(store.db, a))!.event_count, 1, "the duplicate gave its number back");
    const [row] = await allEvents(store.db);
    assert.equal({ ...row!, data: unpackEventData(row!.type, row!.data) }, { ...first!, data: e.data });
    assert.is(row!.tx_hash, e.txHash);
    const next = await store.write(async (trx) => insertEvent(trx, (await findVault(trx, a))!, { ...e, logIndex: 5 }));
    assert.is(next!.seq, 2, "the sequence stays dense");
  } finally {
    await close();
  }
});

test("a reading is packed only when it has exactly the known fields; anything else stays an object", () => {
  const r = reading(9_000_000_000n, 5);
  assert.is(packEventData("BalanceUpdated", r), JSON.stringify(["9000000000", "10000000000", "10000000000", 5, 1000, 0]));
  assert.equal(unpackEventData("BalanceUpdated", packEventData("BalanceUpdated", r)), r);
  const extra = { ...r, note: "x" };
  assert.equal(unpackEventData("BalanceUpdated", packEventData("BalanceUpdated", extra)), extra);
  assert.equal(unpackEventData("Paused", packEventData("Paused", { reason: 1 })), { reason: 1 });
  assert.throws(() => unpackEventData("BalanceUpdated", "[1,2]"), /array of 2 fields/);
});

async function bytesOf(store: Store): Promise<number> {
  sqliteHandle(store).pragma("wal_checkpoint(TRUNCATE)");
  return (sqliteHandle(store).prepare("select sum(pgsize) as n from dbstat").get() as { n: number }).n;
}

only("sqlite", test)("a balance reading costs under 180 bytes of database with its indexes", async () => {
  const dir = tempDir();
  const store = await openStore(join(dir.path, "t.db"));
  try {
    const vaults = Array.from({ length: 20 }, address);
    for (const v of vaults) await store.write((trx) => insertVault(trx, vault(v)));
    const start = await bytesOf(store);
    const cycles = 100;
    for (let c = 0; c < cycles; c++) {
      const txHash = hash();
      await store.write(async (trx) => {
        for (const [i, v] of vaults.entries()) {
          await insertEvent(trx, (await findVault(trx, v))!, {
            type: "BalanceUpdated", txHash, logIndex: i, blockNumber: 100 + c, time: 1_800_000_000 + c,
            data: reading(10_000_000_000n - BigInt(c * 1_000_000 + i), 1_800_000_000 + c),
          });
        }
      });
    }
    const perReading = ((await bytesOf(store)) - start) / (cycles * vaults.length);
    assert.ok(perReading < 180, `${perReading.toFixed(1)} bytes per reading`);
  } finally {
    await store.close();
    dir.remove();
  }
});

test("a signed batch is stored in under a third of its hex, and read back as it was", async () => {
  const { store, close } = await openTestStore();
  try {
    // An oracle batch's calldata: per vault an address word and a balance word, mostly zero padding.
    const words = Array.from({ length: 20 }, address).flatMap((v) => [v.slice(2).padStart(64, "0"), (9_000_000_000n).toString(16).padStart(64, "0")]);
    const rawTx = `0x02f9${"ab".repeat(60)}${words.join("")}`;
    const row = await insertJournal(store.db, {
      chain: "31337", hash: hash(), nonce: 1, raw: rawTx, purpose: "updateBalances", status: "pending", replaces: null,
      block_number: null, block_time: null, created_at: 1, updated_at: 1, error: null,
    });
    assert.is(row.raw, rawTx);
    assert.is((await journalRows(store.db, "31337"))[0]!.raw, rawTx);
    const stored = (await sql<{ n: number }>`select length(raw) as n from tx_journal`.execute(store.db)).rows[0]!.n;
    assert.ok(stored < rawTx.length / 3, `${stored} bytes stored for ${rawTx.length} characters of hex`);
  } finally {
    await close();
  }
});

test.run();
