// SQLite's online backup of one database file while the daemon keeps writing to it. All pages are
// copied in one step: the copy is then the database as of one instant (a step that finds the source
// changed starts over within the same step), never a mix of two, and the daemon's writers are not
// held up (in WAL mode a reader blocks no writer).
import Database from "better-sqlite3";
import { chmodSync } from "node:fs";
import { basename } from "node:path";
import { FILE_MODE, fsyncPath } from "./files.js";
import { AppError } from "../errors.js";

/** Pages per step: everything at once (SQLite caps a step at what the database holds). */
const ALL_PAGES = 0x7fffffff;

export interface DatabaseCopy {
  /** The last migration the daemon had run, or null (the sim's store has no migration table). */
  migration: string | null;
  /** Chain snapshot files the copy's chain_snapshots table names, newest first ([] without the table). */
  snapshots: string[];
}

export async function copyDatabase(from: string, to: string): Promise<DatabaseCopy> {
  // Opened read-write although it only reads: a read-only connection to a stopped daemon's WAL database
  // leaves empty -wal and -shm files behind, while this one, the last to close, checkpoints (which
  // changes no content) and removes them. With the daemon running, it is one more reader.
  const src = new Database(from, { fileMustExist: true });
  try {
    src.pragma("busy_timeout = 10000");
    await src.backup(to, { progress: () => ALL_PAGES });
  } catch (e) {
    throw new AppError("INTERNAL", `cannot back up ${basename(from)}: ${(e as Error).message}`, { cause: e });
  } finally {
    src.close();
  }
  chmodSync(to, FILE_MODE);
  const copy = new Database(to, { fileMustExist: true });
  try {
    // One self-contained file (the daemon turns WAL on again when it opens the restored copy).
    copy.pragma("journal_mode = DELETE");
    const check = copy.pragma("quick_check", { simple: true });
    if (check !== "ok") throw new AppError("INTERNAL", `${basename(from)} fails SQLite's integrity check (${String(check)}); the backup would carry the damage`);
    return { migration: lastMigration(copy), snapshots: snapshotFiles(copy) };
  } finally {
    copy.close();
    fsyncPath(to);
  }
}

const hasTable = (db: Database.Database, name: string) =>
  db.prepare("select 1 from sqlite_master where type = 'table' and name = ?").get(name) !== undefined;

function lastMigration(db: Database.Database): string | null {
  if (!hasTable(db, "kysely_migration")) return null;
  const row = db.prepare("select name from kysely_migration order by name desc limit 1").get() as { name: string } | undefined;
  return row?.name ?? null;
}

/**
 * The snapshot files of the embedded chain (Anvil) that this copy of the database knows. The table's
 * file-name column is found by name, so the backup follows the chain module without importing it.
 */
function snapshotFiles(db: Database.Database): string[] {
  if (!hasTable(db, "chain_snapshots")) return [];
  const columns = (db.prepare("pragma table_info(chain_snapshots)").all() as Array<{ name: string }>).map((c) => c.name);
  const column = ["file", "file_name", "filename", "path"].find((c) => columns.includes(c));
  if (!column) throw new AppError("INTERNAL", `chain_snapshots has no file-name column (columns: ${columns.join(", ")}); this backup does not know the table`);
  const rows = db.prepare(`select "${column}" as file from chain_snapshots order by rowid desc`).all() as Array<{ file: string }>;
  return rows.map((r) => basename(r.file));
}
