// Anvil's state dump (anvil_dumpState: gzip-compressed JSON, as hex) and its compaction. With
// --prune-history Anvil still keeps every block header (~6 KB each), and a dump carries every block
// and every mined transaction with its traces; reloading a dump whose old blocks were trimmed is
// what bounds the node's memory. That trimming depends on the dump's layout, which is Anvil's
// internal format: it is pinned to the version below, and a dump of another shape is kept whole.
import { gunzipSync, gzipSync } from "node:zlib";

/** The Anvil version whose dump layout `compactState` was written against (test/chain/anvil-state.test.ts checks it). */
export const PINNED_ANVIL_VERSION = "1.7.1";
const TOP_LEVEL_KEYS = ["accounts", "best_block_number", "block", "blocks", "historical_states", "transactions"];

interface DumpBlock {
  header: { number: string };
}

interface DumpTransaction {
  block_number: number;
  info?: { traces?: unknown[] };
}

export interface AnvilState {
  best_block_number: number;
  accounts: Record<string, { nonce: number }>;
  blocks: DumpBlock[];
  transactions: DumpTransaction[];
  [key: string]: unknown;
}

export function decodeDump(hex: string): Buffer {
  return gunzipSync(Buffer.from(hex.startsWith("0x") ? hex.slice(2) : hex, "hex"));
}

export function parseState(json: Buffer | string): AnvilState {
  return JSON.parse(json.toString()) as AnvilState;
}

/** Why `state` is not the pinned layout, or undefined when it is. */
export function layoutProblem(state: unknown): string | undefined {
  if (typeof state !== "object" || state === null) return "not an object";
  const keys = Object.keys(state).sort().join();
  if (keys !== TOP_LEVEL_KEYS.join()) return `top-level keys ${keys}`;
  const s = state as AnvilState;
  if (!Number.isInteger(s.best_block_number)) return "best_block_number is not an integer";
  if (!Array.isArray(s.blocks) || s.blocks.some((b) => typeof b?.header?.number !== "string")) return "blocks without header.number";
  if (!Array.isArray(s.transactions) || s.transactions.some((t) => !Number.isInteger(t?.block_number))) return "transactions without block_number";
  return undefined;
}

export interface Compaction {
  state: AnvilState;
  /** False when the layout was not the pinned one: the state is then kept whole. */
  trimmed: boolean;
  problem?: string;
}

/**
 * Drops blocks below `keepFrom` (never the head) and the mined transactions in them, and the
 * transactions' execution traces (only debug_trace* reads them; the daemon never does). Accounts,
 * storage and nonces are untouched: the state is the same, only old history goes.
 */
export function compactState(state: AnvilState, keepFrom: number): Compaction {
  const problem = layoutProblem(state);
  if (problem) return { state, trimmed: false, problem };
  const from = Math.min(keepFrom, state.best_block_number);
  const blocks = state.blocks.filter((b) => Number(b.header.number) >= from);
  const transactions = state.transactions
    .filter((t) => t.block_number >= from)
    .map((t) => (t.info?.traces ? { ...t, info: { ...t.info, traces: [] } } : t));
  return { state: { ...state, blocks, transactions }, trimmed: true };
}

/** A snapshot's heavy part, run off the event loop (snapshot-worker.ts): the raw dump in, the compacted one out. */
export interface CompactJob {
  /** anvil_dumpState's gzip bytes. */
  dump: Uint8Array;
  /** Blocks kept below the head... */
  keepBlocks: number;
  /** ...but never above this one (what the indexer or an unsettled transaction still needs). */
  keepFloor: number;
  /** Whose nonce says which operator transactions the snapshot includes. */
  operator: string;
}

export interface CompactedDump {
  gz: Uint8Array;
  height: number;
  operatorNonce: number;
  trimmed: boolean;
  problem?: string;
}

export function compactDump(job: CompactJob): CompactedDump {
  const full = parseState(gunzipSync(job.dump));
  const compacted = compactState(full, Math.min(full.best_block_number - job.keepBlocks, job.keepFloor));
  return {
    gz: encodeState(compacted.state),
    height: full.best_block_number,
    operatorNonce: compacted.state.accounts[job.operator.toLowerCase()]?.nonce ?? 0,
    trimmed: compacted.trimmed,
    ...(compacted.problem ? { problem: compacted.problem } : {}),
  };
}

export function encodeState(state: AnvilState): Buffer {
  return gzipSync(JSON.stringify(state), { level: 6 });
}

/** What anvil_loadState takes: the gzip bytes as 0x hex. */
export function loadStateParam(gz: Buffer): string {
  return `0x${gz.toString("hex")}`;
}
