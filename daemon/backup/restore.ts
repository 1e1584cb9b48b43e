// `tradevaultd restore <dir> --data-dir <new>`: checks a backup against its manifest (every file a
// backup of its kind holds listed; each a regular file, no link, of the recorded size and SHA-256;
// migrations this build knows), then lays it out as a data directory. Only into a new or empty folder:
// restoring over a daemon's live data would mix two histories. The files land in a sibling staging
// folder first and appear under the final name in one rename, so an interrupted restore leaves no half
// data directory behind.
import { randomBytes } from "node:crypto";
import { mkdirSync, renameSync, rmSync, rmdirSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { AppError } from "../errors.js";
import { sqliteMigrations as migrations } from "../db/migrations/index.js";
import { fsyncPath, isAbsentOrEmpty, notRegularFile, privateCopy, privateDir, sha256File } from "./files.js";
import { requiredFiles } from "./holds.js";
import { backupRefused, readManifest, type Manifest } from "./manifest.js";

export interface RestoreResult {
  dataDir: string;
  manifest: Manifest;
}

/** Refuses a backup whose manifest leaves out a file a complete backup of its kind holds (holds.ts). */
function assertComplete(dir: string, manifest: Manifest): void {
  const listed = new Set(manifest.files.map((f) => f.path));
  const databases = [...manifest.databases.map((d) => d.path), ...manifest.files.filter((f) => f.kind === "database").map((f) => f.path)];
  for (const need of requiredFiles(manifest.holds, databases)) {
    if (listed.has(need.path)) continue;
    throw backupRefused(dir, `${need.path} is missing: a complete backup of this data directory holds it (${need.what})`, { problem: "incomplete", file: need.path });
  }
}

/** Checks every file of the backup against the manifest; returns the manifest when all is well. */
export async function verifyBackup(dirIn: string): Promise<Manifest> {
  const dir = resolve(dirIn);
  if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory()) throw new AppError("NOT_FOUND", `backup folder ${dir} does not exist`);
  const manifest = readManifest(dir);
  assertComplete(dir, manifest);
  for (const f of manifest.files) {
    const bad = notRegularFile(dir, f.path);
    if (bad) throw backupRefused(dir, bad.message, { problem: bad.problem, file: f.path });
    const st = statSync(join(dir, f.path));
    if (st.size !== f.bytes) throw backupRefused(dir, `${f.path} is damaged (${st.size} bytes, the manifest says ${f.bytes})`, { problem: "damaged", file: f.path });
    if ((await sha256File(join(dir, f.path))) !== f.sha256) {
      throw backupRefused(dir, `${f.path} is damaged (its SHA-256 does not match the manifest)`, { problem: "damaged", file: f.path });
    }
  }
  if (!manifest.files.some((f) => f.kind === "database" && /^tradevault-/.test(f.path))) {
    throw backupRefused(dir, "it holds no tradevault database", { problem: "incomplete" });
  }
  for (const db of manifest.databases) {
    if (db.migration !== null && !(db.migration in migrations)) {
      throw backupRefused(dir, `${db.path} was migrated by a newer tradevault (${manifest.versions.tradevault}: ${db.migration}); restore it with that version or later`, { problem: "version" });
    }
  }
  return manifest;
}

export async function restoreBackup(opts: { dir: string; dataDir: string }): Promise<RestoreResult> {
  const dir = resolve(opts.dir);
  const dataDir = resolve(opts.dataDir);
  if (!isAbsentOrEmpty(dataDir)) {
    throw new AppError("INVALID_INPUT", `${dataDir} is not empty: restore only into a new or empty folder (restoring over live data would mix two daemons' histories)`);
  }
  const manifest = await verifyBackup(dir);
  const staging = join(dirname(dataDir), `.${basename(dataDir)}.restoring-${randomBytes(4).toString("hex")}`);
  mkdirSync(dirname(dataDir), { recursive: true });
  privateDir(staging);
  try {
    for (const f of manifest.files) {
      const to = join(staging, f.path);
      privateCopy(join(dir, f.path), to);
      // The copy is checked too: a disk that returns other bytes than it was given fails here, not at start.
      if ((await sha256File(to)) !== f.sha256) throw new AppError("INTERNAL", `${f.path} changed while it was copied; try again`);
    }
    for (const sub of ["keys", "chain", "chain/snapshots"]) if (statSync(join(staging, sub), { throwIfNoEntry: false })) fsyncPath(join(staging, sub));
    if (statSync(dataDir, { throwIfNoEntry: false })) rmdirSync(dataDir); // empty: checked above
    renameSync(staging, dataDir);
    fsyncPath(dirname(dataDir));
    return { dataDir, manifest };
  } catch (e) {
    rmSync(staging, { recursive: true, force: true });
    throw e;
  }
}
