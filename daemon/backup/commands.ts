// What `tradevaultd backup`, `restore` and `migrate-store` print. They run without starting the
// daemon (backup reads a running daemon's files beside it). Failures throw; cli-entry.ts picks exit codes.
import { createBackup } from "./backup.js";
import { redactUrl } from "./database-url.js";
import type { FileEntry } from "./manifest.js";
import { migrateStore, type MigrateStoreResult } from "./migrate-store.js";
import { restoreBackup } from "./restore.js";
import { AppError } from "../errors.js";

export interface Out {
  log(line: string): void;
}

const kib = (files: FileEntry[]) => `${(files.reduce((n, f) => n + f.bytes, 0) / 1024).toFixed(0)} KiB`;

export async function runBackup(opts: { dir: string; dataDir: string; databaseUrl?: string }, out: Out): Promise<void> {
  const { dir, manifest } = await createBackup(opts);
  out.log(`backup of ${manifest.source.dataDir} written to ${dir} (${manifest.files.length} files, ${kib(manifest.files)}):`);
  for (const f of manifest.files) out.log(`  ${f.path}  ${f.bytes} bytes  sha256 ${f.sha256.slice(0, 16)}...`);
  out.log("It holds the operator key and the key that seals the agent keys: keep it where only you can read it.");
  if (opts.databaseUrl) {
    // The daemon's records are in PostgreSQL; the SQLite files above are not what it reads.
    out.log(`Not in it: the PostgreSQL database ${redactUrl(opts.databaseUrl)} the daemon keeps its records in (the SQLite files above are not what it reads).`);
    out.log("Back that database up with PostgreSQL's own tools: pg_dump --format=custom --file tradevault.dump <url> (restore with pg_restore into an empty database).");
  }
  out.log(`Check or restore it with: npx tradevaultd restore ${dir} --data-dir <new folder>`);
}

export async function runRestore(opts: { dir: string; dataDir: string }, out: Out): Promise<void> {
  const { dataDir, manifest } = await restoreBackup(opts);
  out.log(`restored ${manifest.files.length} files (backup of ${manifest.createdAt}, tradevault ${manifest.versions.tradevault}) into ${dataDir}; every checksum matched.`);
  const networks = manifest.databases.map((d) => /^tradevault-(.+)\.db$/.exec(d.path)?.[1]).filter(Boolean);
  out.log(`Databases: ${networks.join(", ")}. Start the daemon on it with: npx tradevaultd --data-dir ${dataDir} (plus the --exchange flags it ran with).`);
}

function checkTable(r: MigrateStoreResult, out: Out): void {
  const width = Math.max(5, ...r.checks.map((c) => c.table.length));
  out.log(`${"table".padEnd(width)}  ${"rows".padStart(9)}  ${"checksum".padEnd(16)}  ok`);
  for (const c of r.checks) {
    const rows = c.ok ? String(c.source.rows) : `${c.source.rows}/${c.target.rows}`;
    const sum = c.ok ? c.source.sha256.slice(0, 16) : `${c.source.sha256.slice(0, 7)}/${c.target.sha256.slice(0, 8)}`;
    out.log(`${c.table.padEnd(width)}  ${rows.padStart(9)}  ${sum.padEnd(16)}  ${c.ok ? "ok" : "MISMATCH"}`);
  }
}

function nextSteps(r: MigrateStoreResult, out: Out): void {
  for (const rec of r.records) out.log(`Added the deployment record of chain ${rec.key} from ${rec.file} (the database had none; other daemons find the factory there).`);
  out.log("Next:");
  out.log("  - Keep the SQLite daemon stopped: its records now live in PostgreSQL, and it would go on writing its old file.");
  const password = r.to.includes(":***@") ? " (with the password as you gave it)" : "";
  out.log(`  - Start each daemon with --database-url ${r.to}${password}, and with the --rpc-url, --chain-id and --exchange-url all of them share.`);
  out.log(r.keys.secretKey
    ? `  - Set TRADEVAULT_SECRET, the same on every daemon, to the key that sealed the agent keys: TRADEVAULT_SECRET=$(cat ${r.keys.secretKey})`
    : "  - Set TRADEVAULT_SECRET, the same on every daemon, to the TRADEVAULT_SECRET the SQLite daemon ran with: it sealed the agent keys.");
  out.log(r.keys.operatorKey
    ? `  - Copy ${r.keys.operatorKey} (owner-only) to where each daemon reads it, and pass --operator-key-file <that file>.`
    : "  - Pass every daemon the --operator-key-file the SQLite daemon ran with: the vaults' factory has that one operator.");
}

export async function runMigrateStore(opts: { from: string; to: string }, out: Out): Promise<void> {
  out.log(`moving ${opts.from} into ${redactUrl(opts.to)}:`);
  const r = await migrateStore({ ...opts, onCopied: (table, rows) => out.log(`  copied ${table} (${rows} ${rows === 1 ? "row" : "rows"})`) });
  checkTable(r, out);
  if (!r.committed) {
    const bad = r.checks.filter((c) => !c.ok).map((c) => c.table);
    throw new AppError("INTERNAL", `the copy does not match the source in ${bad.join(", ")}: rolled back, ${r.to} holds no rows`);
  }
  const rows = r.checks.reduce((n, c) => n + c.source.rows, 0);
  out.log(`moved ${rows} rows in ${r.checks.length} tables; every row count and checksum matched.`);
  nextSteps(r, out);
}
