// Moving a data directory from SQLite to PostgreSQL (`tradevaultd migrate-store`): a real daemon's
// records (two vaults, one paused after a breach with its orders, fills and events, one closed with a
// profit; sessions, agents, the chain's journal) moved into a fresh database by the built command;
// every table listed with equal counts and checksums; a changed value caught; a second run refused;
// new rows numbered after the copied ones; a daemon started on the moved database serving the same
// sessions and vaults; refusals of sources it cannot take; and what `backup` says on PostgreSQL.
import { suite } from "uvu";
import * as assert from "uvu/assert";
import Database from "better-sqlite3";
import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { inflateRawSync } from "node:zlib";
import { sql } from "kysely";
import { migrateStore, checkTables } from "../../daemon/backup/migrate-store.js";
import { columnKinds, connectTarget } from "../../daemon/backup/postgres-target.js";
import { openSource } from "../../daemon/backup/sqlite-source.js";
import { journalFromNonce } from "../../daemon/db/chain-repo.js";
import { openStore } from "../../daemon/db/database.js";
import type { Store } from "../../daemon/db/store.js";
import { insertEvent } from "../../daemon/db/vaults-repo.js";
import { randomBytes } from "node:crypto";
import { Wallet } from "ethers";
import { fakeClock, signIn, startTestDaemon, type TestDaemon } from "../helpers/daemon.js";
import { freshDatabase } from "../helpers/postgres.js";
import { only, rows } from "../helpers/stores.js";
import { tempDir } from "../helpers/util.js";
import { breach, closeWithProfit, vaultCase, type VaultCase } from "../helpers/vaults.js";
import { tradevaultd } from "./_cli.js";

interface Ctx {
  root: string;
  remove(): void;
  dataDir: string;
  source: string;
  url: string;
  paused: VaultCase;
  closed: VaultCase;
  /** What the source daemon answered before it stopped, per party: GET /api/account and /api/vaults. */
  before: Map<string, { account: unknown; vaults: unknown }>;
  counts: Record<string, number>;
  moved?: TestDaemon;
}
const t = suite<Ctx>("migrate-store");
/** Moving needs a PostgreSQL: these run in the PostgreSQL pass (scripts/run-tests.js), skipped on SQLite's. */
const pgTest = only("postgres", t) as unknown as (name: string, fn: (ctx: Ctx) => Promise<void>) => void;

const recordTables = (file: string): string[] => {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare("select name from sqlite_master where type = 'table' order by name").all() as Array<{ name: string }>)
      .map((r) => r.name).filter((n) => !/^(sqlite_|kysely_)/.test(n));
  } finally {
    db.close();
  }
};

const sqliteCount = (file: string, table: string): number => {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare(`select count(*) as n from "${table}"`).get() as { n: number }).n;
  } finally {
    db.close();
  }
};

async function withStore<T>(target: string, fn: (s: Store) => Promise<T>): Promise<T> {
  const store = await openStore(target);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

const pgCounts = (url: string, tables: string[]) => withStore(url, async (s) => {
  const out: Record<string, number> = {};
  for (const table of tables) out[table] = Number((await rows<{ n: string }>(s, sql`select count(*) as n from ${sql.table(table)}`))[0]!.n);
  return out;
});

/**
 * A fresh database whose default collation is not bytewise (ICU's en-US, as a server set up with an
 * en_US.UTF-8 locale has): mixed-case addresses sort differently there than in SQLite.
 */
async function databaseWithIcuCollation(): Promise<string> {
  const url = new URL(await freshDatabase());
  const client = await connectTarget(url.toString());
  const name = `${url.pathname.slice(1)}_icu`;
  try {
    await client.query(`create database ${name} template template0 encoding 'UTF8' locale_provider icu icu_locale 'en-US' locale 'C.UTF-8'`);
  } finally {
    await client.end();
  }
  url.pathname = `/${name}`;
  return url.toString();
}

/** A wallet whose (checksummed) address matches `re`. */
function walletMatching(re: RegExp): Wallet {
  for (;;) {
    const w = new Wallet(`0x${randomBytes(32).toString("hex")}`);
    if (re.test(w.address)) return w;
  }
}

const parties = (ctx: Ctx) => [ctx.paused.ivy, ctx.paused.tom, ctx.closed.ivy, ctx.closed.tom];

async function answers(d: TestDaemon, token: string) {
  const [account, vaults] = [await d.http.get("/api/account", { token }), await d.http.get("/api/vaults", { token })];
  assert.is(account.status, 200, JSON.stringify(account.body));
  assert.is(vaults.status, 200, JSON.stringify(vaults.body));
  return { account: account.body.data, vaults: vaults.body.data.vaults };
}

t.before(async (ctx) => {
  if (process.env.TRADEVAULT_TEST_PG !== "1") return;
  const dir = tempDir("tradevault-migrate-");
  ctx.root = dir.path;
  ctx.remove = dir.remove;
  ctx.dataDir = join(ctx.root, "data");
  // On SQLite whatever the run: the source is a SQLite data directory.
  const d = await startTestDaemon({ dataDir: ctx.dataDir, startOracle: false, clock: fakeClock(Date.now(), { realTime: true }), config: { databaseUrl: undefined } });
  try {
    ctx.paused = await vaultCase(d);
    await breach(ctx.paused); // orders (one resting), a fill, BalanceUpdated and Paused, their transactions
    ctx.closed = await vaultCase(d);
    await closeWithProfit(ctx.closed);
    // Two users whose addresses sort one way bytewise (SQLite: "0xD" < "0xa") and the other way in
    // a linguistic collation: the checksums must read both sides in the same order.
    for (const re of [/^0x[D-F]/, /^0x[a-c]/]) await signIn(d.http, walletMatching(re));
    ctx.before = new Map();
    for (const p of parties(ctx)) ctx.before.set(p.address, await answers(d, p.token));
  } finally {
    await d.close();
  }
  ctx.source = join(ctx.dataDir, "tradevault-sim.db");
  ctx.url = await databaseWithIcuCollation();
});
t.after(async (ctx) => {
  await ctx.moved?.close();
  ctx.remove?.();
});

pgTest("the built command moves every table, and lists each with equal counts and checksums", async (ctx) => {
  const run = await tradevaultd(["migrate-store", "--from", ctx.source, "--to", ctx.url]);
  assert.is(run.code, 0, run.stderr + run.stdout);
  const listed = run.stdout.split("\n").map((l) => /^(\w+)\s+(\d+)\s+([0-9a-f]{16})\s+ok$/.exec(l)).filter((m) => m !== null);
  const tables = recordTables(ctx.source);
  assert.ok(tables.length >= 20, tables.join());
  assert.equal(listed.map((m) => m[1]).sort(), tables, "every table of the schema is checked");
  ctx.counts = await pgCounts(ctx.url, tables);
  for (const m of listed) {
    const [table, n] = [m[1]!, Number(m[2])];
    assert.is(n, sqliteCount(ctx.source, table), `${table} in the source`);
    assert.is(ctx.counts[table], n, `${table} in the target`);
  }
  for (const table of ["users", "sessions", "agents", "orders", "vaults", "vault_events", "vault_trades", "tx_journal", "proposals"]) {
    assert.ok(ctx.counts[table]! > 0, `the source daemon wrote ${table}`);
  }
  assert.not.match(run.stdout, /MISMATCH/);
  assert.ok(run.stdout.includes(`TRADEVAULT_SECRET=$(cat ${join(ctx.dataDir, "keys", "secret.key")})`), run.stdout);
  assert.ok(run.stdout.includes(join(ctx.dataDir, "keys", "operator.key")), run.stdout);
  assert.match(run.stdout, /--database-url postgres:\/\//);
});

pgTest("the journal reads back the same through the daemon's own repository", async (ctx) => {
  const copy = join(ctx.root, "source-copy.db");
  copyFileSync(ctx.source, copy);
  const journal = async (target: string) => withStore(target, async (s) => {
    const chains = await rows<{ chain: string }>(s, sql`select distinct chain from tx_journal order by chain`);
    return Promise.all(chains.map((c) => journalFromNonce(s.db, c.chain, 0)));
  });
  const [a, b] = [await journal(copy), await journal(ctx.url)];
  assert.ok(a.flat().length > 0);
  assert.equal(b, a);
});

pgTest("a second run into the same database is refused, and leaves it as it was", async (ctx) => {
  const run = await tradevaultd(["migrate-store", "--from", ctx.source, "--to", ctx.url]);
  assert.is(run.code, 1, run.stdout);
  assert.match(run.stderr, /is not empty \(rows in .*users/);
  assert.equal(await pgCounts(ctx.url, Object.keys(ctx.counts)), ctx.counts);
  // A database holding rows in a table of that name, never migrated: refused before any migration runs.
  const other = await freshDatabase();
  const client = await connectTarget(other);
  try {
    await client.query("create table users (address text); insert into users values ('someone else''s')");
    const err = await migrateStore({ from: ctx.source, to: other }).then(() => undefined, (e: Error) => e);
    assert.match(err?.message ?? "", /is not empty \(rows in users\)/);
    const tables = await client.query("select table_name from information_schema.tables where table_schema = 'public'");
    assert.equal(tables.rows, [{ table_name: "users" }], "no migration ran");
  } finally {
    await client.end();
  }
});

pgTest("the checksums see a single changed value, and name its table", async (ctx) => {
  const source = openSource(ctx.source);
  const client = await connectTarget(ctx.url);
  try {
    await client.query("begin");
    const kinds = await columnKinds(client, source.tables.map((x) => x.name));
    const bad = async () => (await checkTables(source, client, kinds)).filter((c) => !c.ok).map((c) => c.table);
    assert.equal(await bad(), []);
    // One digit of one order's price; then one byte of one journal transaction (a bytea column).
    await client.query("update orders set price = price || '1' where id = (select max(id) from orders)");
    assert.equal(await bad(), ["orders"]);
    await client.query("update tx_journal set raw = raw || '\\x00'::bytea where id = (select min(id) from tx_journal)");
    assert.equal(await bad(), ["orders", "tx_journal"]);
  } finally {
    await client.query("rollback");
    await client.end();
    source.close();
  }
});

pgTest("new rows get ids after the copied ones", async (ctx) => {
  await withStore(ctx.url, async (s) => {
    const last = Number((await rows<{ id: string }>(s, sql`select max(id) as id from vault_events`))[0]!.id);
    const vault = await s.db.selectFrom("vaults").selectAll().where("address", "=", ctx.paused.vault).executeTakeFirstOrThrow();
    const reading = await s.db.selectFrom("vault_events").select(["type", "data", "time"]).where("vault_num", "=", vault.num!).where("type", "=", "BalanceUpdated")
      .orderBy("id", "desc").executeTakeFirstOrThrow();
    const data = JSON.parse(reading.data) as unknown[];
    const keys = ["balance", "peakBalance", "dayStartBalance", "observedAt", "drawdownBps", "dailyDrawdownBps"];
    const event = await s.write((trx) => insertEvent(trx, vault, {
      type: "BalanceUpdated", txHash: null, logIndex: null, blockNumber: null, time: reading.time + 1,
      data: Object.fromEntries(keys.map((k, i) => [k, data[i]])),
    }));
    assert.ok(event && event.id > last, `new id ${event?.id}, copied up to ${last}`);
    const order = await rows<{ id: string }>(s, sql`select nextval(pg_get_serial_sequence('orders', 'id')) as id`);
    assert.ok(Number(order[0]!.id) > ctx.counts.orders!, "the orders' sequence too");
  });
});

pgTest("a daemon on the moved database serves the copied sessions and the same vaults", async (ctx) => {
  const r = (ctx.moved = await startTestDaemon({
    dataDir: ctx.dataDir, startOracle: false, clock: fakeClock(Date.now(), { realTime: true }), config: { databaseUrl: ctx.url },
  }));
  assert.is(r.daemon.store.kind, "postgres");
  for (const p of parties(ctx)) {
    const now = await answers(r, p.token);
    const was = ctx.before.get(p.address)!;
    assert.equal((now.account as { address: string }).address, (was.account as { address: string }).address);
    const vaults = (list: unknown) => (list as Array<Record<string, unknown>>).map((v) => ({ address: v.address, status: v.status, investor: v.investor, trader: v.trader }));
    assert.equal(vaults(now.vaults), vaults(was.vaults), p.address);
    assert.ok(vaults(now.vaults).length > 0);
  }
});

pgTest("an old journal row holding its transaction as 0x text arrives as the same transaction", async (ctx) => {
  const old = join(ctx.root, "old-journal.db");
  copyFileSync(ctx.source, old);
  const db = new Database(old);
  const row = db.prepare("select id, raw from tx_journal order by id limit 1").get() as { id: number; raw: Buffer };
  db.prepare("update tx_journal set raw = ? where id = ?").run(`0x${inflateRawSync(row.raw).toString("hex")}`, row.id);
  db.close();
  const url = await freshDatabase();
  const result = await migrateStore({ from: old, to: url });
  assert.ok(result.committed);
  const first = async (target: string) => withStore(target, async (s) => (await journalFromNonce(s.db, "31337", 0)).find((j) => j.id === row.id));
  assert.is((await first(url))?.raw, (await first(ctx.source))?.raw);
});

pgTest("a table of several batches arrives whole", async (ctx) => {
  const big = join(ctx.root, "big.db");
  copyFileSync(ctx.source, big);
  const db = new Database(big);
  const insert = db.prepare("insert into auth_nonces (nonce, address, message, issued_at, expires_at) values (?, ?, ?, ?, ?)");
  db.transaction(() => {
    for (let i = 0; i < 4_500; i++) insert.run(`n-${i}`, ctx.paused.ivy.address, `message ${i}`, 1_795_000_000_000 + i, 2 ** 40 + i);
  })();
  db.close();
  const url = await freshDatabase();
  const result = await migrateStore({ from: big, to: url });
  const nonces = result.checks.find((c) => c.table === "auth_nonces")!;
  assert.ok(result.committed && nonces.ok);
  assert.ok(nonces.target.rows >= 4_500, String(nonces.target.rows));
  assert.equal(await pgCounts(url, ["auth_nonces"]), { auth_nonces: nonces.source.rows });
});

pgTest("an external chain's deployment record only in the data directory is carried into the database", async (ctx) => {
  // A daemon from before the deployments table wrote the record only to <data-dir>/chain/.
  const dir = join(ctx.root, "external");
  mkdirSync(join(dir, "chain"), { recursive: true });
  copyFileSync(ctx.source, join(dir, "tradevault-sim.db"));
  const record = { chainId: 421614, kind: "external", factory: ctx.paused.vault, implementation: ctx.closed.vault, token: ctx.paused.ivy.address, operator: ctx.paused.tom.address, deployBlock: 7, createdAt: 1 };
  writeFileSync(join(dir, "chain", "external-421614.json"), `${JSON.stringify(record, null, 2)}\n`);
  writeFileSync(join(dir, "chain", "31337.json"), "{}"); // the embedded chain's: this daemon's own, not shared
  const url = await freshDatabase();
  const result = await migrateStore({ from: join(dir, "tradevault-sim.db"), to: url });
  assert.equal(result.records.map((r) => r.key), ["external-421614"]);
  const stored = await withStore(url, (s) => rows<{ key: string; record: string }>(s, sql`select key, record from deployments order by key`));
  assert.equal(stored.map((r) => [r.key, JSON.parse(r.record)]), [["external-421614", record]]);
});

pgTest("sources it cannot take are refused before the target is touched", async (ctx) => {
  const url = await freshDatabase();
  const refused = async (from: string, message: RegExp) => {
    const err = await migrateStore({ from, to: url }).then(() => undefined, (e: Error) => e);
    assert.ok(err, `${from} should be refused`);
    assert.match(err!.message, message);
  };
  await refused(join(ctx.root, "nothing.db"), /no such file/);
  writeFileSync(join(ctx.root, "text.db"), "not a database at all, just some text that is long enough to have a header\n".repeat(10));
  await refused(join(ctx.root, "text.db"), /cannot open .* as a SQLite database/);
  const behind = join(ctx.root, "behind.db");
  copyFileSync(ctx.source, behind);
  const newest = (db: Database.Database) => (db.prepare("select max(name) as n from kysely_migration").get() as { n: string }).n;
  let db = new Database(behind);
  const dropped = newest(db);
  db.prepare("delete from kysely_migration where name = ?").run(dropped);
  db.close();
  await refused(behind, new RegExp(`lacks migrations ${dropped}: start this version's daemon on it once`));
  const ahead = join(ctx.root, "ahead.db");
  copyFileSync(ctx.source, ahead);
  db = new Database(ahead);
  db.prepare("insert into kysely_migration (name, timestamp) values ('2099-01-01-001-future', '2099-01-01')").run();
  db.close();
  await refused(ahead, /written by a newer tradevault .*upgrade tradevault/);
  await withStore(url, async (s) => {
    assert.equal(await rows(s, sql`select 1 from vaults`), [], "the target holds no rows");
  });
  // Through the command line: the exit codes.
  const missing = await tradevaultd(["migrate-store", "--from", join(ctx.root, "nothing.db"), "--to", url]);
  assert.is(missing.code, 1);
  assert.match(missing.stderr, /^tradevaultd migrate-store: cannot open .* no such file/);
  const usage = await tradevaultd(["migrate-store", "--from", ctx.source, "--to", "mysql://x@y/z"]);
  assert.is(usage.code, 2);
  assert.match(usage.stderr, /must be a postgres:\/\/ or postgresql:\/\/ URL/);
});

pgTest("backup says the PostgreSQL database is not in it, and never prints its password", async (ctx) => {
  const url = "postgres://tradevault:s3cret-pw@db.internal:5432/tradevault";
  const flag = await tradevaultd(["backup", join(ctx.root, "b1"), "--data-dir", ctx.dataDir, "--database-url", url]);
  assert.is(flag.code, 0, flag.stderr);
  assert.match(flag.stdout, /Not in it: the PostgreSQL database postgres:\/\/tradevault:\*\*\*@db\.internal:5432\/tradevault/);
  assert.match(flag.stdout, /pg_dump/);
  assert.not.match(flag.stdout + flag.stderr, /s3cret-pw/);
  const env = await tradevaultd(["backup", join(ctx.root, "b2"), "--data-dir", ctx.dataDir], { TRADEVAULT_DATABASE_URL: url });
  assert.is(env.code, 0, env.stderr);
  assert.match(env.stdout, /pg_dump/);
  const plain = await tradevaultd(["backup", join(ctx.root, "b3"), "--data-dir", ctx.dataDir]);
  assert.is(plain.code, 0, plain.stderr);
  assert.not.match(plain.stdout, /pg_dump|PostgreSQL/);
  // A data directory whose daemon only ever ran on PostgreSQL has no SQLite database to copy.
  const pgOnly = join(ctx.root, "pg-only");
  mkdirSync(join(pgOnly, "keys"), { recursive: true });
  writeFileSync(join(pgOnly, "keys", "operator.key"), "00".repeat(32));
  const none = await tradevaultd(["backup", join(ctx.root, "b4"), "--data-dir", pgOnly, "--database-url", url]);
  assert.is(none.code, 1);
  assert.match(none.stderr, /no SQLite database in .*PostgreSQL, which this command does not back up. Use pg_dump/);
});

t.run();
