// Opens the sim's SQLite file and creates its tables. The sim uses better-sqlite3 directly (not
// kysely) because its writes must be synchronous transactions: one action = one transaction, with no
// await inside, so nothing can interleave with it. Amounts are stored as canonical decimal TEXT
// (they exceed SQLite's 64-bit integers at the sim's 18-decimal scale and stay readable).
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";

export type Db = Database.Database;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS sim_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS marks (coin TEXT PRIMARY KEY, px TEXT NOT NULL, time INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS accounts (
  user TEXT PRIMARY KEY, usdc TEXT NOT NULL, created_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS leverages (
  user TEXT NOT NULL, coin TEXT NOT NULL, leverage INTEGER NOT NULL, PRIMARY KEY (user, coin));
CREATE TABLE IF NOT EXISTS positions (
  user TEXT NOT NULL, coin TEXT NOT NULL, szi TEXT NOT NULL, entry_ntl TEXT NOT NULL,
  PRIMARY KEY (user, coin));
CREATE TABLE IF NOT EXISTS orders (
  oid INTEGER PRIMARY KEY, user TEXT NOT NULL, coin TEXT NOT NULL, is_buy INTEGER NOT NULL,
  limit_px TEXT NOT NULL, sz TEXT NOT NULL, orig_sz TEXT NOT NULL, tif TEXT NOT NULL,
  reduce_only INTEGER NOT NULL, cloid TEXT, status TEXT NOT NULL,
  created_at INTEGER NOT NULL, status_at INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS orders_by_status ON orders (status, coin, oid);
CREATE INDEX IF NOT EXISTS orders_by_user ON orders (user, status, oid);
CREATE UNIQUE INDEX IF NOT EXISTS orders_by_cloid ON orders (user, cloid) WHERE cloid IS NOT NULL;
CREATE TABLE IF NOT EXISTS fills (
  tid INTEGER PRIMARY KEY, user TEXT NOT NULL, oid INTEGER NOT NULL, time INTEGER NOT NULL,
  body TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS fills_by_user ON fills (user, time, tid);
CREATE TABLE IF NOT EXISTS agents (
  address TEXT PRIMARY KEY, user TEXT NOT NULL, name TEXT NOT NULL,
  valid_until INTEGER NOT NULL, approved_at INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS agents_by_user ON agents (user);
CREATE TABLE IF NOT EXISTS nonces (signer TEXT NOT NULL, nonce INTEGER NOT NULL, PRIMARY KEY (signer, nonce));
CREATE TABLE IF NOT EXISTS ledger (
  id INTEGER PRIMARY KEY AUTOINCREMENT, user TEXT NOT NULL, time INTEGER NOT NULL,
  hash TEXT NOT NULL, delta TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS ledger_by_user ON ledger (user, time, id);
CREATE TABLE IF NOT EXISTS mark_history (coin TEXT NOT NULL, time INTEGER NOT NULL, px TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS mark_history_by_coin ON mark_history (coin, time);
CREATE TABLE IF NOT EXISTS funding_rates (
  coin TEXT NOT NULL, time INTEGER NOT NULL, rate TEXT NOT NULL, PRIMARY KEY (coin, time));
CREATE TABLE IF NOT EXISTS funding_totals (
  user TEXT NOT NULL, coin TEXT NOT NULL, all_time TEXT NOT NULL, since_open TEXT NOT NULL,
  since_change TEXT NOT NULL, PRIMARY KEY (user, coin));
CREATE TABLE IF NOT EXISTS spot_balances (user TEXT PRIMARY KEY, usdc TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS isolated_margins (
  user TEXT NOT NULL, coin TEXT NOT NULL, margin TEXT NOT NULL, PRIMARY KEY (user, coin));
`;

export function openDb(path: string): Db {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  if (path !== ":memory:") db.pragma("journal_mode = WAL");
  // FULL: an acknowledged action survives a power cut, which is what makes "in doubt" meaningful.
  db.pragma("synchronous = FULL");
  db.pragma("busy_timeout = 5000");
  db.exec(SCHEMA);
  addTriggerColumns(db);
  return db;
}

/** Trigger orders' columns, added to a file an older sim created (NULL trigger_px: a plain order). */
function addTriggerColumns(db: Db): void {
  const have = new Set((db.prepare("PRAGMA table_info(orders)").all() as { name: string }[]).map((c) => c.name));
  const columns = [
    "trigger_px TEXT", "tpsl TEXT", "trigger_market INTEGER", "trigger_state TEXT",
    "position_tpsl INTEGER NOT NULL DEFAULT 0", "parent_oid INTEGER",
  ];
  for (const c of columns) if (!have.has(c.split(" ")[0]!)) db.exec(`ALTER TABLE orders ADD COLUMN ${c}`);
  db.exec("CREATE INDEX IF NOT EXISTS orders_by_parent ON orders (parent_oid) WHERE parent_oid IS NOT NULL");
}
