// The daemon's own snapshots of the embedded chain (Anvil's --state file is rewritten in place and a
// SIGKILL tears it or loses mined transactions). A snapshot is anvil_dumpState, compacted, written to
// a temp file, fsynced, renamed and the directory fsynced; only then is it recorded in SQLite with the
// operator nonce it includes, so a row always names a whole file. The last two are kept. At start the
// newest one whose bytes match their recorded hash is loaded; the journal replays what came after.
import { sha256Hex } from "../lib/sha256.js";
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, readdirSync, renameSync, rmSync, writeSync } from "node:fs";
import { extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { gunzip } from "node:zlib";
import type { Logger } from "pino";
import type { Store } from "../db/database.js";
import { deleteSnapshot, insertSnapshot, lastJournalIdBelow, snapshotsOf } from "../db/chain-repo.js";
import type { ChainSnapshotRow } from "../db/schema-chain.js";
import { AppError } from "../errors.js";
import { parseState } from "./anvil-state.js";
import type { CompactJob, CompactedDump } from "./anvil-state.js";
import { runInWorker } from "../lib/module-worker.js";
import type { EmbeddedNode } from "./embedded-node.js";

const gunzipAsync = promisify(gunzip);

/** How many snapshot files stay on disk: the newest, and one to fall back to if it is torn. */
export const SNAPSHOTS_KEPT = 2;

export interface SnapshotContext {
  dataDir: string;
  /** Journal and record key of the chain ("31337"). */
  chain: string;
  store: Store;
  log: Logger;
  operator: string;
  anvilVersion: string;
  nowS(): number;
}

export interface TakenSnapshot {
  row: ChainSnapshotRow;
  /** The compacted state, gzipped: what a compaction reloads into a fresh node. */
  gz: Buffer;
  trimmed: boolean;
}

export const snapshotDir = (dataDir: string) => join(dataDir, "chain", "snapshots");

function writeDurably(dir: string, name: string, bytes: Buffer): void {
  mkdirSync(dir, { recursive: true });
  const tmp = join(dir, `${name}.tmp`);
  const fd = openSync(tmp, "w", 0o600);
  try {
    for (let off = 0; off < bytes.length; ) off += writeSync(fd, bytes, off);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, join(dir, name));
  const dfd = openSync(dir, "r"); // the rename itself survives a power cut only once the directory is synced
  try {
    fsyncSync(dfd);
  } finally {
    closeSync(dfd);
  }
}


/** Which blocks a snapshot keeps: `keepBlocks` below the head, and never any above `keepFloor`. */
export interface KeepBlocks {
  keepBlocks: number;
  keepFloor: number;
}

const WORKER = new URL(`./snapshot-worker${extname(fileURLToPath(import.meta.url))}`, import.meta.url);

/**
 * Dumps the node's state, compacts it in a worker thread (the dump is tens of MB of JSON), and records
 * the snapshot. The caller makes sure no operator transaction is being sent meanwhile only when it
 * needs the snapshot to be the node's exact state (a compaction); otherwise the nonce in the dump
 * says what it includes.
 */
export async function takeSnapshot(ctx: SnapshotContext, node: EmbeddedNode, keep: KeepBlocks): Promise<TakenSnapshot> {
  const hex = (await node.rpc.request({ method: "anvil_dumpState" })) as string;
  const job: CompactJob = { dump: Buffer.from(hex.slice(2), "hex"), ...keep, operator: ctx.operator };
  const out = await runInWorker<CompactJob, CompactedDump>(WORKER, job);
  if (!out.trimmed) {
    ctx.log.warn({ problem: out.problem, anvil: ctx.anvilVersion }, "Anvil's state dump is not in the pinned layout; snapshot kept whole (memory is not trimmed)");
  }
  const gz = Buffer.from(out.gz.buffer, out.gz.byteOffset, out.gz.byteLength);
  const nonce = out.operatorNonce;
  const createdAt = ctx.nowS();
  // Two snapshots in one second at one height (a clean stop right before a compaction) differ in
  // trimming: the hash keeps their names apart.
  const file = `${ctx.chain}-${createdAt}-h${out.height}-n${nonce}-${sha256Hex(gz).slice(0, 8)}.json.gz`;
  const dir = snapshotDir(ctx.dataDir);
  writeDurably(dir, file, gz);
  const row = {
    chain: ctx.chain, file, operator_nonce: nonce, journal_id: await lastJournalIdBelow(ctx.store.db, ctx.chain, nonce),
    height: out.height, bytes: gz.length, sha256: sha256Hex(gz), anvil_version: ctx.anvilVersion, created_at: createdAt,
  };
  await ctx.store.write((trx) => insertSnapshot(trx, row));
  await pruneSnapshots(ctx);
  const [saved] = await snapshotsOf(ctx.store.db, ctx.chain);
  return { row: saved!, gz, trimmed: out.trimmed };
}

/** Keeps the newest SNAPSHOTS_KEPT rows and their files; deletes other rows, then files no row names. */
export async function pruneSnapshots(ctx: SnapshotContext): Promise<void> {
  const rows = await snapshotsOf(ctx.store.db, ctx.chain);
  for (const old of rows.slice(SNAPSHOTS_KEPT)) await ctx.store.write((trx) => deleteSnapshot(trx, old.id));
  const named = new Set(rows.slice(0, SNAPSHOTS_KEPT).map((r) => r.file));
  const dir = snapshotDir(ctx.dataDir);
  let files: string[] = [];
  try {
    files = readdirSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return; // no snapshot was ever written
    ctx.log.warn({ err, dir }, "cannot list the snapshot directory: its stray files are left for the next prune");
    return;
  }
  // Files of this chain no row names: a crash between rename and insert, a pruned one, a temp file.
  for (const f of files) if (f.startsWith(`${ctx.chain}-`) && !named.has(f)) rmSync(join(dir, f), { force: true });
}

export interface LoadableSnapshot {
  row: ChainSnapshotRow;
  /** gzip bytes, checked against the recorded hash and decompressible. */
  gz: Buffer;
}

/** The recorded snapshots that are whole on disk, newest first; a torn or missing one is skipped with a warning. */
export async function loadableSnapshots(ctx: Pick<SnapshotContext, "dataDir" | "chain" | "store" | "log">): Promise<LoadableSnapshot[]> {
  const out: LoadableSnapshot[] = [];
  for (const row of await snapshotsOf(ctx.store.db, ctx.chain)) {
    try {
      const gz = readFileSync(join(snapshotDir(ctx.dataDir), row.file));
      if (gz.length !== row.bytes || sha256Hex(gz) !== row.sha256) throw new Error("its bytes do not match the recorded size and hash");
      // Only that it is a state at all: the layout check is the compaction's business, not loading's.
      if (!Number.isInteger(parseState(await gunzipAsync(gz)).best_block_number)) throw new Error("not an Anvil state");
      out.push({ row, gz });
    } catch (e) {
      ctx.log.warn({ file: row.file, err: (e as Error).message }, "chain snapshot unusable; falling back to an older one or the journal");
    }
  }
  return out;
}

export function snapshotError(row: ChainSnapshotRow, cause: unknown): AppError {
  return new AppError("CHAIN_UNAVAILABLE", `the embedded chain refused snapshot ${row.file}`, { cause });
}
