// `tradevaultd backup <dir>`: a consistent copy of a data directory, safe while the daemon runs and
// writes. Databases first (SQLite's online backup), then what they refer to: the keys, the chain's
// deployment records and the chain snapshots the copied database names (a snapshot newer than the
// database copy would hold transactions the copied journal does not know). The manifest is written
// last, so a backup interrupted half-way is never mistaken for a whole one; it records the kind of
// data directory (holds.ts), so restore knows what a whole one holds.
import { hostname } from "node:os";
import { join, resolve } from "node:path";
import { rmSync, statSync } from "node:fs";
import Database from "better-sqlite3";
import { anvilBinary } from "../chain/anvil-binary.js";
import { AppError } from "../errors.js";
import { packageVersion } from "../lib/package-root.js";
import { fsyncPath, filesIn, isAbsentOrEmpty, notRegularFile, privateCopy, privateDir, sha256File, writeAtomic } from "./files.js";
import { holdsOf, isDaemonDb, requiredFiles, SIM_DB, type Holds } from "./holds.js";
import { FORMAT, FORMAT_VERSION, MANIFEST, type FileEntry, type Manifest } from "./manifest.js";
import { copyDatabase } from "./sqlite-copy.js";

export { SIM_DB } from "./holds.js";

export interface BackupResult {
  dir: string;
  manifest: Manifest;
}

function anvilVersion(): string | null {
  try {
    return anvilBinary().version;
  } catch {
    return null;
  }
}

function sqliteVersion(): string {
  const db = new Database(":memory:");
  try {
    return (db.prepare("select sqlite_version() as v").get() as { v: string }).v;
  } finally {
    db.close();
  }
}

async function entry(dir: string, path: string, kind: FileEntry["kind"]): Promise<FileEntry> {
  const full = join(dir, path);
  return { path, kind, bytes: statSync(full).size, sha256: await sha256File(full) };
}

/** The databases, then the snapshots they name; returns their manifest entries. */
async function copyDatabases(dataDir: string, dir: string, manifest: Pick<Manifest, "databases">, databaseUrl?: string): Promise<FileEntry[]> {
  const names = filesIn(dataDir, isDaemonDb);
  if (names.length === 0 && databaseUrl) {
    throw new AppError("NOT_FOUND", `no SQLite database in ${dataDir}: its daemon keeps its records in PostgreSQL, which this command does not back up. Use pg_dump for the database, and copy ${join(dataDir, "keys")} yourself`);
  }
  if (names.length === 0) throw new AppError("NOT_FOUND", `no tradevault database (tradevault-<network>.db) in ${dataDir}; is --data-dir right?`);
  if (filesIn(dataDir, (n) => n === SIM_DB).length > 0) names.push(SIM_DB);
  const out: FileEntry[] = [];
  const snapshots = new Set<string>();
  for (const name of names) {
    const copy = await copyDatabase(join(dataDir, name), join(dir, name));
    manifest.databases.push({ path: name, migration: copy.migration });
    copy.snapshots.forEach((s) => snapshots.add(s));
    out.push(await entry(dir, name, "database"));
  }
  for (const s of snapshots) {
    const from = join(dataDir, "chain", "snapshots", s);
    // The daemon keeps the last two: an older one named by the copy may have been rotated away since.
    // The chain is then rebuilt from the newest one left and the journal after it.
    if (!statSync(from, { throwIfNoEntry: false })) continue;
    privateCopy(from, join(dir, "chain", "snapshots", s));
    out.push(await entry(dir, `chain/snapshots/${s}`, "snapshot"));
  }
  if (snapshots.size > 0 && !out.some((f) => f.kind === "snapshot")) {
    throw new AppError("CONFLICT", "every chain snapshot the database names was replaced while the backup ran; run the backup again", { retryable: true });
  }
  return out;
}

async function copyPlain(dataDir: string, dir: string, folder: string, kind: FileEntry["kind"], keep?: (n: string) => boolean): Promise<FileEntry[]> {
  const out: FileEntry[] = [];
  for (const name of filesIn(join(dataDir, folder), keep)) {
    privateCopy(join(dataDir, folder, name), join(dir, folder, name));
    out.push(await entry(dir, `${folder}/${name}`, kind));
  }
  return out;
}

/** A backup that restore would refuse is not written: every file its kind holds must have been copied. */
function assertWhole(dataDir: string, holds: Holds, manifest: Manifest): void {
  const copied = new Set(manifest.files.map((f) => f.path));
  for (const need of requiredFiles(holds, manifest.databases.map((d) => d.path))) {
    if (copied.has(need.path)) continue;
    // Copies take regular files only (filesIn): a linked key, say, would otherwise be left out unseen.
    const why = notRegularFile(dataDir, need.path)?.message ?? `${need.path} was not copied`;
    throw new AppError("INVALID_INPUT", `cannot back up ${dataDir}: ${why}, and a backup of it must hold ${need.what}`);
  }
}

/** `databaseUrl`: the daemon keeps its records in that PostgreSQL database, which is not backed up here. */
export async function createBackup(opts: { dataDir: string; dir: string; databaseUrl?: string; clock?: () => number }): Promise<BackupResult> {
  const dataDir = resolve(opts.dataDir);
  const dir = resolve(opts.dir);
  if (!statSync(dataDir, { throwIfNoEntry: false })?.isDirectory()) throw new AppError("NOT_FOUND", `data directory ${dataDir} does not exist`);
  if (!isAbsentOrEmpty(dir)) throw new AppError("INVALID_INPUT", `${dir} is not empty: back up into a new or empty folder`);
  if (dir === dataDir || dir.startsWith(`${dataDir}/`)) throw new AppError("INVALID_INPUT", "the backup folder cannot be inside the data directory");
  const existed = statSync(dir, { throwIfNoEntry: false }) !== undefined;
  privateDir(dir);
  try {
    const holds = holdsOf(dataDir);
    const manifest: Manifest = {
      format: FORMAT, formatVersion: FORMAT_VERSION,
      createdAt: new Date((opts.clock ?? Date.now)()).toISOString(),
      source: { dataDir, hostname: hostname() },
      versions: { tradevault: packageVersion(), node: process.version, sqlite: sqliteVersion(), anvil: anvilVersion() },
      databases: [], files: [], holds,
    };
    manifest.files.push(...(await copyDatabases(dataDir, dir, manifest, opts.databaseUrl)));
    manifest.files.push(...(await copyPlain(dataDir, dir, "keys", "key")));
    manifest.files.push(...(await copyPlain(dataDir, dir, "chain", "deployment", (n) => n.endsWith(".json"))));
    assertWhole(dataDir, holds, manifest);
    for (const sub of ["keys", "chain", "chain/snapshots"]) if (statSync(join(dir, sub), { throwIfNoEntry: false })) fsyncPath(join(dir, sub));
    writeAtomic(join(dir, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
    return { dir, manifest };
  } catch (e) {
    // Half a backup must not lie around looking like one (it has no manifest, but it holds keys).
    rmSync(dir, { recursive: true, force: true });
    if (existed) privateDir(dir);
    throw e;
  }
}
