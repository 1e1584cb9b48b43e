// What `tradevaultd backup` and `tradevaultd restore` print. They run without starting the daemon
// (backup reads a running daemon's files beside it). Failures throw; cli-entry.ts picks exit codes.
import { createBackup } from "./backup.js";
import type { FileEntry } from "./manifest.js";
import { restoreBackup } from "./restore.js";

export interface Out {
  log(line: string): void;
}

const kib = (files: FileEntry[]) => `${(files.reduce((n, f) => n + f.bytes, 0) / 1024).toFixed(0)} KiB`;

export async function runBackup(opts: { dir: string; dataDir: string }, out: Out): Promise<void> {
  const { dir, manifest } = await createBackup(opts);
  out.log(`backup of ${manifest.source.dataDir} written to ${dir} (${manifest.files.length} files, ${kib(manifest.files)}):`);
  for (const f of manifest.files) out.log(`  ${f.path}  ${f.bytes} bytes  sha256 ${f.sha256.slice(0, 16)}...`);
  out.log("It holds the operator key and the key that seals the agent keys: keep it where only you can read it.");
  out.log(`Check or restore it with: tradevaultd restore ${dir} --data-dir <new folder>`);
}

export async function runRestore(opts: { dir: string; dataDir: string }, out: Out): Promise<void> {
  const { dataDir, manifest } = await restoreBackup(opts);
  out.log(`restored ${manifest.files.length} files (backup of ${manifest.createdAt}, tradevault ${manifest.versions.tradevault}) into ${dataDir}; every checksum matched.`);
  const networks = manifest.databases.map((d) => /^tradevault-(.+)\.db$/.exec(d.path)?.[1]).filter(Boolean);
  out.log(`Databases: ${networks.join(", ")}. Start the daemon on it with: tradevaultd --data-dir ${dataDir} (plus the --exchange flags it ran with).`);
}
