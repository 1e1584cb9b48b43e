// File steps shared by backup and restore: checksums, private copies and durable writes. A backup holds
// the operator's and the agents' keys, so everything it writes is readable by its owner only (files
// 0600, folders 0700), and a file counts as written only once it is synced.
import { createHash } from "node:crypto";
import { createReadStream, fsyncSync, mkdirSync, openSync, closeSync, readdirSync, statSync, lstatSync, chmodSync, copyFileSync, writeFileSync, renameSync } from "node:fs";
import { dirname, join } from "node:path";

export const FILE_MODE = 0o600;
export const DIR_MODE = 0o700;

export async function sha256File(path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

/** Flushes a file's or a folder's contents (a folder: the names in it) to the disk. */
export function fsyncPath(path: string): void {
  const fd = openSync(path, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export function privateDir(path: string): void {
  mkdirSync(path, { recursive: true, mode: DIR_MODE });
  chmodSync(path, DIR_MODE);
}

/** Copies `from` to `to` (its folder created), owner-only and synced. */
export function privateCopy(from: string, to: string): void {
  privateDir(dirname(to));
  copyFileSync(from, to);
  chmodSync(to, FILE_MODE);
  fsyncPath(to);
}

/** Writes `text` to `path` atomically: a synced temporary file renamed over it, then the folder synced. */
export function writeAtomic(path: string, text: string): void {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, text, { mode: FILE_MODE });
  fsyncPath(tmp);
  renameSync(tmp, path);
  fsyncPath(dirname(path));
}

/** True when `path` does not exist or is an empty folder; false for a folder with anything in it. */
export function isAbsentOrEmpty(path: string): boolean {
  const st = statSync(path, { throwIfNoEntry: false });
  if (!st) return true;
  return st.isDirectory() && readdirSync(path).length === 0;
}

/** Regular files directly in `dir` whose name passes `keep`, sorted; none when the folder is absent. */
export function filesIn(dir: string, keep: (name: string) => boolean = () => true): string[] {
  const st = statSync(dir, { throwIfNoEntry: false });
  if (!st?.isDirectory()) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isFile() && keep(e.name))
    .map((e) => e.name)
    .sort();
}

export interface FileProblem {
  problem: "missing" | "not-a-file";
  message: string;
}

/**
 * Why `path` (relative, "/"-separated) under `root` is not a plain file reached through plain
 * folders: missing, a symbolic link (its own or a folder's on the way), a folder, or something else.
 * Undefined for a regular file. A link could point anywhere, so a backup holds none.
 */
export function notRegularFile(root: string, path: string): FileProblem | undefined {
  const parts = path.split("/");
  const notAFile = (message: string): FileProblem => ({ problem: "not-a-file", message });
  for (let i = 1; i <= parts.length; i++) {
    const at = parts.slice(0, i).join("/");
    const st = lstatSync(join(root, at), { throwIfNoEntry: false });
    const last = i === parts.length;
    if (!st) return { problem: "missing", message: `${path} is missing` };
    if (st.isSymbolicLink()) return notAFile(last ? `${path} is a symbolic link, not a file` : `${at} is a symbolic link, not a folder`);
    if (!last && !st.isDirectory()) return notAFile(`${at} is not a folder`);
    if (last && st.isDirectory()) return notAFile(`${path} is a folder, not a file`);
    if (last && !st.isFile()) return notAFile(`${path} is not a regular file`);
  }
  return undefined;
}
