// The two stores' schemas cannot drift: SQLite after its whole history and PostgreSQL after its
// baseline and the shared migrations have the same tables, columns (kind, nullability, default),
// primary keys, foreign keys and indexes (columns, uniqueness, partial condition, and the names of
// the ones created by name). Needs both stores, so it runs in the PostgreSQL pass.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { sql } from "kysely";
import { openStore } from "../../daemon/db/database.js";
import { sqliteHandle } from "../../daemon/db/sqlite-store.js";
import type { Store } from "../../daemon/db/store.js";
import { freshDatabase } from "../helpers/postgres.js";
import { only } from "../helpers/stores.js";
import { tempDir } from "../helpers/util.js";

/** Differences that are the point of the port, each with why. */
const KNOWN: Record<string, string> = {
  // SQLite's column was declared text (migration 003) and has held deflated blobs since 007.
  "tx_journal.raw": "bytes",
};

type Kind = "integer" | "text" | "bytes";

const kindOf = (declared: string): Kind => {
  const t = declared.toLowerCase();
  if (/int/.test(t)) return "integer";
  if (/char|text/.test(t)) return "text";
  if (/blob|bytea/.test(t)) return "bytes";
  throw new Error(`unexpected column type ${declared}`);
};

/** "'[]'::text" and "'[]'" are the same default; so are "(0)" and "0". */
const normalDefault = (d: string | null): string | null => (d === null ? null : d.replace(/::[a-z ]+$/i, "").replace(/^\((.*)\)$/, "$1"));
/** `where "closed" = 0` and `WHERE (closed = 0)` are the same condition. */
const normalWhere = (w: string | undefined): string => (w ?? "").replace(/["()]/g, "").replace(/\s+/g, " ").trim().toLowerCase();

interface Schema {
  [table: string]: { columns: string[]; primaryKey: string; foreignKeys: string[]; indexes: string[] };
}

const IGNORED = new Set(["kysely_migration", "kysely_migration_lock", "sqlite_sequence"]);

async function sqliteSchema(store: Store): Promise<Schema> {
  const db = sqliteHandle(store);
  const all = <T>(q: string, ...p: unknown[]) => db.prepare(q).all(...p) as T[];
  const out: Schema = {};
  for (const { name } of all<{ name: string }>("select name from sqlite_master where type = 'table' order by name")) {
    if (IGNORED.has(name)) continue;
    const cols = all<{ name: string; type: string; notnull: number; dflt_value: string | null; pk: number }>(`pragma table_info("${name}")`);
    const indexes = all<{ name: string; unique: number; origin: string; partial: number }>(`pragma index_list("${name}")`).filter((i) => i.origin !== "pk");
    out[name] = {
      columns: cols.map((c) => `${c.name} ${KNOWN[`${name}.${c.name}`] ?? kindOf(c.type)} ${c.notnull || c.pk ? "not null" : "null"} default ${normalDefault(c.dflt_value)}`).sort(),
      primaryKey: cols.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk).map((c) => c.name).join(","),
      foreignKeys: all<{ from: string; table: string; to: string; on_delete: string }>(`pragma foreign_key_list("${name}")`)
        .map((f) => `${f.from} -> ${f.table}(${f.to}) on delete ${f.on_delete.toLowerCase()}`).sort(),
      indexes: indexes.map((i) => {
        const columns = all<{ name: string }>(`pragma index_info("${i.name}")`).map((c) => c.name).join(",");
        const where = i.partial ? (db.prepare("select sql from sqlite_master where name = ?").get(i.name) as { sql: string }).sql.split(/ where /i)[1] : undefined;
        // Indexes of UNIQUE column constraints are named by each database its own way.
        return `${i.origin === "c" ? i.name : "(constraint)"} ${i.unique ? "unique " : ""}(${columns})${where ? ` where ${normalWhere(where)}` : ""}`;
      }).sort(),
    };
  }
  return out;
}

async function postgresSchema(store: Store): Promise<Schema> {
  const q = async <T>(query: ReturnType<typeof sql<T>>) => (await query.execute(store.db)).rows;
  const out: Schema = {};
  const tables = await q<{ name: string }>(sql`select table_name as name from information_schema.tables where table_schema = 'public' order by 1`);
  for (const { name } of tables) {
    if (IGNORED.has(name)) continue;
    const cols = await q<{ name: string; type: string; nullable: string; dflt: string | null }>(sql`
      select column_name as name, data_type as type, is_nullable as nullable, column_default as dflt
      from information_schema.columns where table_schema = 'public' and table_name = ${name}`);
    const constraints = await q<{ type: string; def: string; index: string | null }>(sql`
      select contype as type, pg_get_constraintdef(c.oid) as def, i.relname as index
      from pg_constraint c left join pg_class i on i.oid = c.conindid where c.conrelid = ${name}::regclass`);
    const indexes = await q<{ name: string; unique: boolean; columns: string; predicate: string | null }>(sql`
      select i.relname as name, x.indisunique as unique, pg_get_expr(x.indpred, x.indrelid) as predicate,
        (select string_agg(a.attname, ',' order by k.n) from unnest(x.indkey) with ordinality k(attnum, n)
          join pg_attribute a on a.attrelid = x.indrelid and a.attnum = k.attnum) as columns
      from pg_index x join pg_class i on i.oid = x.indexrelid where x.indrelid = ${name}::regclass and not x.indisprimary`);
    const byConstraint = new Set(constraints.filter((c) => c.type === "u").map((c) => c.index));
    const pk = constraints.find((c) => c.type === "p")?.def ?? "";
    out[name] = {
      columns: cols.map((c) => `${c.name} ${kindOf(c.type)} ${c.nullable === "NO" ? "not null" : "null"} default ${normalDefault(c.dflt)}`).sort(),
      primaryKey: pk.replace(/^PRIMARY KEY \((.*)\)$/, "$1").replace(/[" ]/g, ""),
      foreignKeys: constraints.filter((c) => c.type === "f").map((c) => {
        const [, from, table, to, rest] = /^FOREIGN KEY \((\w+)\) REFERENCES (\w+)\((\w+)\)(.*)$/.exec(c.def)!;
        return `${from} -> ${table}(${to}) on delete ${/ON DELETE CASCADE/.test(rest!) ? "cascade" : "no action"}`;
      }).sort(),
      indexes: indexes.map((i) =>
        `${byConstraint.has(i.name) ? "(constraint)" : i.name} ${i.unique ? "unique " : ""}(${i.columns.replace(/"/g, "")})${i.predicate ? ` where ${normalWhere(i.predicate)}` : ""}`).sort(),
    };
  }
  return out;
}

only("postgres", test)("SQLite after its history and PostgreSQL after its baseline have the same schema", async () => {
  const dir = tempDir();
  const lite = await openStore(`${dir.path}/t.db`);
  const pg = await openStore(await freshDatabase());
  try {
    const [a, b] = [await sqliteSchema(lite), await postgresSchema(pg)];
    assert.ok(Object.keys(a).length >= 16, `SQLite has ${Object.keys(a).length} tables`);
    assert.equal(Object.keys(b).sort(), Object.keys(a).sort(), "the same tables");
    for (const table of Object.keys(a)) assert.equal(b[table], a[table], `table ${table}`);
    // the migrations after the baseline are the same on both
    const names = async (s: Store) => (await sql<{ name: string }>`select name from kysely_migration order by name`.execute(s.db)).rows.map((r) => r.name);
    const [onLite, onPg] = [await names(lite), await names(pg)];
    assert.equal(onPg.slice(1), onLite.slice(onLite.indexOf("2026-11-26-009-enforcement") + 1));
  } finally {
    await lite.close();
    await pg.close();
    dir.remove();
  }
});

// Times (ms or s), ids, the exchange's ids, nonces, blocks, chain positions, sizes: 2^31 is within reach.
const WIDE = /(_at|^time|_ms|^id|_id|oid|tid|nonce|block.*|_pos|^tx|replaces|height|bytes|deadline|valid_until)$/;

only("postgres", test)("on PostgreSQL every column that can pass 2^31 is a bigint", async () => {
  const pg = await openStore(await freshDatabase());
  try {
    const cols = (await sql<{ col: string; type: string }>`
      select table_name || '.' || column_name as col, data_type as type from information_schema.columns
      where table_schema = 'public' and table_name not like 'kysely%' order by 1`.execute(pg.db)).rows;
    const wide = cols.filter((c) => c.type !== "text" && c.type !== "bytea" && WIDE.test(c.col.split(".")[1]!));
    assert.ok(wide.length > 40, `${wide.length} wide columns`);
    assert.equal(wide.filter((c) => c.type !== "bigint").map((c) => `${c.col} ${c.type}`), []);
  } finally {
    await pg.close();
  }
});

test.run();
