// Worker side of audit-write: the daemon's own write path for vault trades (appendFills inside
// store.immediate, on a store opened by openStore: WAL, synchronous=FULL, the migrated schema), and
// the baseline of plain better-sqlite3 inserts of the same rows in one transaction on the same schema.
// Each measurement gets a fresh database, so every variant writes into an equally empty table.
import { join } from "node:path";
import { openSqliteStore, type SqliteStore } from "../../daemon/db/sqlite-store.js";
import { appendFills, type NewFill } from "../../daemon/db/vault-trades-repo.js";
import { tempDir } from "../lib/daemon-host.js";

const VAULT = "0x00000000000000000000000000000000000000Aa";
const ACCOUNT = "0x00000000000000000000000000000000000000bB";
const T0 = Date.UTC(2026, 0, 1);

const fill = (i: number): NewFill => ({
  tid: i + 1, oid: 1_000_000 + i, symbol: "BTC", side: i % 2 ? "buy" : "sell", size: "0.01", price: "60000.5", pnl: "-1.25", fee: "0.12",
  timeMs: T0 + i * 1000,
});

async function withStore<T>(fn: (store: SqliteStore) => T | Promise<T>): Promise<T> {
  const dir = tempDir("tradevault-audit-");
  const store = await openSqliteStore(join(dir.path, "audit.db"));
  try {
    return await fn(store);
  } finally {
    await store.close();
    dir.remove();
  }
}

const seconds = (t: bigint) => Number(process.hrtime.bigint() - t) / 1e9;

export function serve() {
  return {
    /** Fills per second through appendFills, `batch` fills per immediate transaction. */
    appendFills: (count: number, batch: number) =>
      withStore(async (store) => {
        const fills = Array.from({ length: count }, (_, i) => fill(i));
        const t = process.hrtime.bigint();
        for (let i = 0; i < count; i += batch) {
          const added = await store.write((trx) => appendFills(trx, VAULT, ACCOUNT, fills.slice(i, i + batch)));
          if (added.length !== Math.min(batch, count - i)) throw new Error("appendFills skipped fills");
        }
        return count / seconds(t);
      }),
    /** Rows per second of a prepared INSERT, all in one transaction. */
    plain: (count: number) =>
      withStore((store) => {
        const insert = store.sqlite.prepare(
          `insert into vault_trades (vault, seq, account, tid, oid, symbol, side, size, price, pnl, fee, time_ms) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        );
        const rows = Array.from({ length: count }, (_, i) => fill(i));
        const t = process.hrtime.bigint();
        store.sqlite.transaction(() => {
          rows.forEach((f, i) => insert.run(VAULT, i + 1, ACCOUNT, f.tid, f.oid, f.symbol, f.side, f.size, f.price, f.pnl, f.fee, f.timeMs));
        }).immediate();
        return count / seconds(t);
      }),
  };
}
