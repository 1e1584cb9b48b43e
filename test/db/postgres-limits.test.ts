// Every connection of a PostgreSQL store is bounded in time (db/postgres-pool.ts): the pooled ones
// carry the idle-in-transaction, lock and statement timeouts and the keepalives, so a daemon stalled
// inside a transaction loses its locks to the server; migrations and migrate-store run untimed.
import { sql } from "kysely";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { connectTarget } from "../../daemon/backup/postgres-target.js";
import { DEFAULT_LIMITS, migrateUntimed } from "../../daemon/db/postgres-pool.js";
import { openPostgresStore, type PostgresStore } from "../../daemon/db/postgres-store.js";
import { asAppError, databaseError, isCommitInDoubt, isConnectionLost, type AppError } from "../../daemon/errors.js";
import { freshDatabase } from "../helpers/postgres.js";
import { only } from "../helpers/stores.js";
import { waitUntil, within } from "../helpers/util.js";

const pgTest = only("postgres", test);
const opened: PostgresStore[] = [];
test.after.each(async () => {
  for (const s of opened.splice(0)) await s.close().catch(() => undefined);
});

const show = async (db: PostgresStore["db"], name: string) =>
  (await sql.raw<Record<string, string>>(`show ${name}`).execute(db)).rows[0]![name];

pgTest("a pooled connection carries the timeouts and keepalives, over the database's own defaults", async () => {
  const url = await freshDatabase();
  const admin = await openPostgresStore(url);
  opened.push(admin);
  const name = new URL(url).pathname.slice(1);
  // Defaults an operator may have set on the database: the store's own settings win over them.
  await sql.raw(`alter database ${name} set statement_timeout = '1h'`).execute(admin.db);
  await sql.raw(`alter database ${name} set lock_timeout = '1h'`).execute(admin.db);
  const store = await openPostgresStore(url);
  opened.push(store);
  assert.is(await show(store.db, "idle_in_transaction_session_timeout"), "5s");
  assert.is(await show(store.db, "lock_timeout"), "3s");
  assert.is(await show(store.db, "statement_timeout"), "15s");
  assert.is(await show(store.db, "tcp_keepalives_idle"), "5");
  assert.is(await show(store.db, "tcp_keepalives_interval"), "2");
  assert.is(await show(store.db, "tcp_keepalives_count"), "3");
  // Inside a unit of work too (its own leased connection).
  assert.is(await store.write((trx) => show(trx as PostgresStore["db"], "lock_timeout")), "3s");
  const mine = await openPostgresStore(url, { limits: { ...DEFAULT_LIMITS, lockMs: 250, statementMs: 60_000 } });
  opened.push(mine);
  assert.is(await show(mine.db, "lock_timeout"), "250ms");
  assert.is(await show(mine.db, "statement_timeout"), "1min");
});

pgTest("migrations and migrate-store run with every timeout off, whatever the database's defaults", async () => {
  const url = await freshDatabase();
  const admin = await openPostgresStore(url);
  opened.push(admin);
  const name = new URL(url).pathname.slice(1);
  await sql.raw(`alter database ${name} set statement_timeout = '2s'`).execute(admin.db);
  await migrateUntimed(url, async (db) => {
    assert.is(await show(db as PostgresStore["db"], "statement_timeout"), "0");
    assert.is(await show(db as PostgresStore["db"], "lock_timeout"), "0");
    assert.is(await show(db as PostgresStore["db"], "idle_in_transaction_session_timeout"), "0");
  });
  const client = await connectTarget(url);
  try {
    for (const setting of ["statement_timeout", "lock_timeout", "idle_in_transaction_session_timeout"]) {
      assert.is((await client.query(`show ${setting}`)).rows[0][setting], "0", setting);
    }
  } finally {
    await client.end();
  }
});

pgTest("a unit of work stalled inside its transaction loses its row locks to the server: the next writer goes through", async () => {
  const url = await freshDatabase();
  const limits = { ...DEFAULT_LIMITS, idleInTransactionMs: 500, lockMs: 0 };
  const stalled = await openPostgresStore(url, { limits });
  const other = await openPostgresStore(url, { limits });
  opened.push(stalled, other);
  await sql`create table stall_probe (id int primary key, v text)`.execute(stalled.db);
  await sql`insert into stall_probe values (1, 'before')`.execute(stalled.db);

  let locked!: () => void;
  const holding = new Promise<void>((r) => (locked = r));
  let wake!: () => void;
  const stall = new Promise<void>((r) => (wake = r));
  // A daemon paused mid-unit: the row is locked, then nothing more is sent on the connection.
  const first = stalled.write(async (trx) => {
    await sql`update stall_probe set v = 'stalled' where id = 1`.execute(trx);
    locked();
    await stall;
    await sql`update stall_probe set v = 'stalled again' where id = 1`.execute(trx);
  });
  const firstSettled = first.then(() => "committed", (e: unknown) => e);
  await holding;
  // The failure bound only turns a hang into a failure (the old pool had no limit: it waited forever).
  try {
    await within(other.write((trx) => sql`update stall_probe set v = 'second' where id = 1`.execute(trx)), 60_000, "the second writer getting the row");
  } finally {
    wake();
  }
  const outcome = await firstSettled;
  assert.ok(outcome instanceof Error, "the stalled unit did not commit");
  assert.ok(isConnectionLost(outcome), `the stalled unit's session was ended by the server: ${String(outcome)}`);
  assert.is(databaseError(outcome)?.status, 503);
  const row = await sql<{ v: string }>`select v from stall_probe where id = 1`.execute(other.db);
  assert.is(row.rows[0]!.v, "second");
  // The store goes on: the pool replaced the ended connection.
  assert.is(await stalled.write(async (trx) => (await sql<{ one: number }>`select 1 as one`.execute(trx)).rows[0]!.one), 1);
});

pgTest("a writer that met the lock timeout answers 503, and its connection goes back to the pool clean", async () => {
  const url = await freshDatabase();
  const holder = await openPostgresStore(url);
  const waiter = await openPostgresStore(url, { poolSize: 1, limits: { ...DEFAULT_LIMITS, lockMs: 200 } });
  opened.push(holder, waiter);
  await sql`create table lock_probe (id int primary key, v text)`.execute(holder.db);
  await sql`insert into lock_probe values (1, 'before')`.execute(holder.db);
  let locked!: () => void;
  const holding = new Promise<void>((r) => (locked = r));
  let done!: () => void;
  const release = new Promise<void>((r) => (done = r));
  const held = holder.write(async (trx) => {
    await sql`update lock_probe set v = 'holder' where id = 1`.execute(trx);
    locked();
    await release;
  });
  await holding;
  try {
    const failed = await waiter.write((trx) => sql`update lock_probe set v = 'waiter' where id = 1`.execute(trx)).then(() => undefined, (e: unknown) => e);
    assert.ok(failed, "the waiter did not get the lock");
    assert.is(databaseError(failed)?.status, 503, String(failed));
    assert.ok(databaseError(failed)!.retryAfter! >= 1);
    // Its one connection serves the next query: no transaction left open or aborted on it.
    assert.is((await sql<{ v: string }>`select v from lock_probe where id = 1`.execute(waiter.db)).rows[0]!.v, "before");
  } finally {
    done();
  }
  await held;
});

pgTest("a COMMIT whose connection is gone is reported in doubt (503, details.inDoubt), never as a plain failure", async () => {
  const url = await freshDatabase();
  const store = await openPostgresStore(url);
  const admin = await openPostgresStore(url);
  opened.push(store, admin);
  await sql`create table doubt_probe (id int primary key)`.execute(store.db);
  const outcome = await store.write(async (trx) => {
    await sql`insert into doubt_probe values (1)`.execute(trx);
    const pid = (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx)).rows[0]!.pid;
    // The connection goes between the unit's last statement and its COMMIT.
    await sql`select pg_terminate_backend(${pid})`.execute(admin.db);
    await waitUntil(async () => (await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity where pid = ${pid}`.execute(admin.db)).rows[0]!.n === 0,
      { what: "the unit's session to end" });
  }).then(() => "committed", (e: unknown) => e);
  assert.ok(isCommitInDoubt(outcome), `in doubt: ${String(outcome)}`);
  assert.is((outcome as AppError).status, 503);
  assert.ok((outcome as AppError).retryAfter! >= 1);
  assert.is(asAppError(outcome), outcome, "kept as it is by every boundary");
});

test.run();
