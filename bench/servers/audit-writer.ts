// Worker side of audit-write: the daemon's own write path for vault trades (appendFills inside
// store.write: a durable commit, synchronous=FULL on SQLite) and its baseline, plain prepared INSERTs
// of the same rows with the same commits (the same number of rows a transaction, each committed
// durably) on the same migrated schema. Each measurement gets a fresh database, so every variant
// writes into an equally empty table. On PostgreSQL the same pair runs on a throwaway server
// (test/helpers/postgres-server.js), the baseline through one pg client with a named statement.
import { join } from "node:path";
import pg from "pg";
import { openStore } from "../../daemon/db/database.js";
import { sqliteHandle } from "../../daemon/db/sqlite-store.js";
import type { Store, StoreKind } from "../../daemon/db/store.js";
import { appendFills, type NewFill } from "../../daemon/db/vault-trades-repo.js";
import { freshDatabase } from "../../test/helpers/postgres.js";
import { tempDir } from "../lib/daemon-host.js";

const VAULT = "0x00000000000000000000000000000000000000Aa";
const ACCOUNT = "0x00000000000000000000000000000000000000bB";
const T0 = Date.UTC(2026, 0, 1);
const INSERT = `insert into vault_trades (vault, seq, account, tid, oid, symbol, side, size, price, pnl, fee, time_ms)`;

const fill = (i: number): NewFill => ({
  tid: i + 1, oid: 1_000_000 + i, symbol: "BTC", side: i % 2 ? "buy" : "sell", size: "0.01", price: "60000.5", pnl: "-1.25", fee: "0.12",
  timeMs: T0 + i * 1000,
});
const params = (f: NewFill, seq: number) => [VAULT, seq, ACCOUNT, f.tid, f.oid, f.symbol, f.side, f.size, f.price, f.pnl, f.fee, f.timeMs];

async function withStore<T>(kind: StoreKind, fn: (store: Store, target: string) => Promise<T>): Promise<T> {
  const dir = tempDir("tradevault-audit-");
  const target = kind === "postgres" ? await freshDatabase() : join(dir.path, "audit.db");
  const store = await openStore(target);
  try {
    return await fn(store, target);
  } finally {
    await store.close();
    dir.remove();
  }
}

const seconds = (t: bigint) => Number(process.hrtime.bigint() - t) / 1e9;

/** `count` rows in transactions of `batch`, each committed durably, through better-sqlite3 or pg directly. */
async function plainInserts(store: Store, target: string, count: number, batch: number): Promise<number> {
  const rows = Array.from({ length: count }, (_, i) => fill(i));
  if (store.kind === "sqlite") {
    const sqlite = sqliteHandle(store);
    const insert = sqlite.prepare(`${INSERT} values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    const t = process.hrtime.bigint();
    for (let i = 0; i < count; i += batch) {
      sqlite.transaction(() => {
        for (let j = i; j < Math.min(count, i + batch); j++) insert.run(...params(rows[j]!, j + 1));
      }).immediate();
    }
    return count / seconds(t);
  }
  const client = new pg.Client({ connectionString: target });
  await client.connect();
  try {
    const text = `${INSERT} values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`;
    const t = process.hrtime.bigint();
    for (let i = 0; i < count; i += batch) {
      await client.query("begin");
      for (let j = i; j < Math.min(count, i + batch); j++) await client.query({ name: "plain-insert", text, values: params(rows[j]!, j + 1) });
      await client.query("commit");
    }
    return count / seconds(t);
  } finally {
    await client.end();
  }
}

export function serve() {
  return {
    /** Fills per second through appendFills, `batch` fills per durable unit of work. */
    appendFills: (count: number, batch: number, kind: StoreKind = "sqlite") =>
      withStore(kind, async (store) => {
        const fills = Array.from({ length: count }, (_, i) => fill(i));
        const t = process.hrtime.bigint();
        for (let i = 0; i < count; i += batch) {
          const added = await store.write((trx) => appendFills(trx, VAULT, ACCOUNT, fills.slice(i, i + batch)));
          if (added.length !== Math.min(batch, count - i)) throw new Error("appendFills skipped fills");
        }
        return count / seconds(t);
      }),
    /** Rows per second of a prepared INSERT, `batch` rows per durable transaction. */
    plain: (count: number, batch: number, kind: StoreKind = "sqlite") => withStore(kind, (store, target) => plainInserts(store, target, count, batch)),
  };
}
