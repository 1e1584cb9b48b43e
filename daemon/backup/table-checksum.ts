// A table's row count and SHA-256, computed the same way over the SQLite source and over the
// PostgreSQL target: rows in primary-key order, each the JSON array of its values in canonical text
// (row-values.ts), one per line. Equal sums mean equal rows, value for value, in the same order.
import { createHash, type Hash } from "node:crypto";
import type pg from "pg";
import { canonical, type Kind } from "./row-values.js";
import { quoteIdent, type Source, type SourceTable } from "./sqlite-source.js";

export interface TableSum {
  rows: number;
  sha256: string;
}

/** Rows fetched from the target per round trip. */
const FETCH = 1_000;

function adder(table: SourceTable) {
  const hash: Hash = createHash("sha256");
  let rows = 0;
  return {
    add(values: unknown[]) {
      hash.update(`${JSON.stringify(values.map((v, i) => canonical(table.name, table.columns[i]!, v)))}\n`);
      rows += 1;
    },
    done: (): TableSum => ({ rows, sha256: hash.digest("hex") }),
  };
}

export function sourceSum(source: Source, table: SourceTable): TableSum {
  const sum = adder(table);
  for (const row of source.rows(table)) sum.add(row);
  return sum.done();
}

/**
 * The same over the target, through a cursor (a table need not fit in memory), inside the caller's
 * transaction. Text keys sort bytewise (collate "C"), as SQLite's do, whatever the database's
 * collation; nulls first, as in SQLite.
 */
export async function targetSum(client: pg.ClientBase, table: SourceTable, kinds: Map<string, Kind>): Promise<TableSum> {
  const order = table.key.map((c) => `${quoteIdent(c)}${kinds.get(c) === "text" ? ' collate "C"' : ""} nulls first`).join(", ");
  const cursor = quoteIdent(`checksum_${table.name}`);
  await client.query(`declare ${cursor} no scroll cursor for select ${table.columns.map(quoteIdent).join(", ")} from ${quoteIdent(table.name)} order by ${order}`);
  const sum = adder(table);
  for (;;) {
    const batch = await client.query<unknown[]>({ text: `fetch forward ${FETCH} from ${cursor}`, rowMode: "array" });
    for (const row of batch.rows) sum.add(row);
    if (batch.rows.length < FETCH) break;
  }
  // (A failed fetch aborts the transaction, which drops the cursor with it.)
  await client.query(`close ${cursor}`);
  return sum.done();
}
