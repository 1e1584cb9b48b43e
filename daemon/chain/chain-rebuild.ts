// Brings a fresh embedded node up to the journal. The operator sends every transaction there, so
// replaying its signed raw transactions in nonce order, each original block at its original
// timestamp, yields the same chain: same transaction hashes, same contract and vault addresses
// (CREATE from the same nonces, CREATE2 from the same terms), same logs at the same (tx hash, log
// index), and the same balances. Nothing new reaches the event table. After a snapshot only the
// operator's nonces from the snapshot's on are replayed.
import type { Logger } from "pino";
import type { TxJournalRow } from "../db/schema-chain.js";
import { AppError } from "../errors.js";
import type { EmbeddedNode, RpcCall } from "./embedded-node.js";

export interface ReplayEntry {
  hash: string;
  raw: string;
  nonce: number;
  /** Where it was mined the first time; null for an attempt whose outcome the journal never learnt. */
  blockNumber: number | null;
  blockTime: number | null;
  /** How it ended the first time; the replay must end the same way. */
  reverted: boolean;
}

type Node = Pick<EmbeddedNode, "batch">;

interface Head {
  number: number;
  time: number;
}

const hex = (n: number) => `0x${n.toString(16)}`;

/**
 * One entry per nonce from `fromNonce` on: the mined attempt, or for a nonce whose outcome the journal
 * never recorded (a crash between mining and writing it down) the newest live attempt, so that later
 * mined nonces can follow it. Trailing unrecorded attempts are left to the sender, which settles them.
 */
export function replayPlan(rows: TxJournalRow[], fromNonce: number): ReplayEntry[] {
  const byNonce = new Map<number, TxJournalRow[]>();
  for (const r of rows) if (r.nonce >= fromNonce) byNonce.set(r.nonce, [...(byNonce.get(r.nonce) ?? []), r]);
  const plan: ReplayEntry[] = [];
  let pendingGap: ReplayEntry[] = [];
  for (let n = fromNonce; byNonce.has(n); n++) {
    const attempts = byNonce.get(n)!;
    const mined = attempts.find((r) => r.block_number !== null && (r.status === "confirmed" || r.status === "reverted"));
    const live = attempts.filter((r) => r.status === "pending" || r.status === "sent").at(-1);
    const pick = mined ?? live;
    if (!pick) break; // only failed attempts: the nonce was never used, nothing after it was either
    const entry: ReplayEntry = {
      hash: pick.hash, raw: pick.raw, nonce: n, blockNumber: mined ? pick.block_number : null,
      blockTime: mined ? pick.block_time : null, reverted: pick.status === "reverted",
    };
    if (!mined) {
      pendingGap.push(entry);
      continue;
    }
    plan.push(...pendingGap.map((g) => ({ ...g, blockNumber: entry.blockNumber, blockTime: entry.blockTime })), entry);
    pendingGap = [];
  }
  return plan;
}

async function latest(node: Node): Promise<Head> {
  const [b] = (await node.batch([{ method: "eth_getBlockByNumber", params: ["latest", false] }])) as Array<{ number: string; timestamp: string }>;
  return { number: Number(b!.number), time: Number(b!.timestamp) };
}

/**
 * Calls that mine `count` empty blocks after `head` with timestamps below `before`, so the next
 * replayed block keeps its original number (blocks the first chain mined without our transactions).
 * The first chain may have mined several blocks in one second (automine) where a replay needs a second
 * per block: then only block numbers shift; events are keyed by (tx hash, log index), so nothing is
 * lost or repeated.
 */
function gapCalls(head: Head, count: number, before: number): RpcCall[] {
  const fits = Math.min(count, before - head.time - 1);
  if (fits <= 0) return [];
  return [{ method: "evm_setNextBlockTimestamp", params: [hex(head.time + 1)] }, { method: "anvil_mine", params: [hex(fits), "0x1"] }];
}

interface MinedBlock {
  number: string;
  transactions: string[];
}

/**
 * Replays one original block; returns the new head. Anvil runs the calls of one JSON-RPC batch
 * concurrently, so only calls whose order does not matter share one: the block's timestamp and its
 * transactions (one sender: the pool orders them by nonce), then the mine, then the reads.
 */
async function replayBlock(node: Node, head: Head, group: ReplayEntry[], log: Logger): Promise<Head> {
  const { blockNumber, blockTime } = group[0]! as { blockNumber: number; blockTime: number };
  const time = Math.max(blockTime, head.time);
  for (const call of gapCalls(head, blockNumber - 1 - head.number, time)) await node.batch([call]);
  await node.batch([
    { method: "evm_setNextBlockTimestamp", params: [hex(time)] },
    ...group.map((e) => ({ method: "eth_sendRawTransaction", params: [e.raw] })),
  ]);
  await node.batch([{ method: "evm_mine", params: [] }]);
  const answers = await node.batch([
    { method: "eth_getBlockByNumber", params: ["latest", false] },
    { method: "eth_getBlockReceipts", params: ["latest"] },
  ]);
  const mined = answers.at(-2) as MinedBlock;
  const receipts = answers.at(-1) as Array<{ transactionHash: string; status: string }>;
  const expected = group.map((e) => e.hash.toLowerCase());
  const got = mined.transactions.map((h) => h.toLowerCase());
  if (got.join() !== expected.join()) {
    throw new AppError("INTERNAL", `chain replay diverged at block ${blockNumber}`, { details: { expected, got } });
  }
  if (Number(mined.number) !== blockNumber) log.debug({ blockNumber, now: Number(mined.number) }, "chain replay: a block moved");
  for (const e of group) {
    const r = receipts.find((x) => x.transactionHash.toLowerCase() === e.hash.toLowerCase());
    // Only a transaction from outside the journal (someone else's, on a dev chain) can change an
    // outcome. The chain then differs from the database; say so loudly, but keep the daemon running.
    if (e.blockNumber !== null && (r?.status === "0x0") !== e.reverted) {
      log.error({ txHash: e.hash, blockNumber, revertedBefore: e.reverted }, "chain replay: a transaction ended differently than the first time");
    }
  }
  return { number: Number(mined.number), time };
}

/**
 * Replays `entries` (replayPlan's order) onto the node, then mines empty blocks up to `minHead`
 * (blocks the indexer and the journal have already seen must exist again, and later blocks must get
 * higher numbers than any the journal recorded).
 */
export async function replayJournal(node: Node, entries: ReplayEntry[], opts: { minHead: number; log: Logger }): Promise<void> {
  const groups: ReplayEntry[][] = [];
  for (const e of entries) {
    const last = groups.at(-1);
    if (last && last[0]!.blockNumber === e.blockNumber) last.push(e);
    else groups.push([e]);
  }
  await node.batch([{ method: "evm_setAutomine", params: [false] }]);
  try {
    let head = await latest(node);
    for (const group of groups) head = await replayBlock(node, head, group, opts.log);
    if (head.number < opts.minHead) {
      await node.batch([{ method: "evm_setNextBlockTimestamp", params: [hex(head.time + 1)] }]);
      await node.batch([{ method: "anvil_mine", params: [hex(opts.minHead - head.number), "0x1"] }]);
    }
  } finally {
    await node.batch([{ method: "evm_setAutomine", params: [true] }]);
  }
  if (entries.length > 0) opts.log.info({ blocks: groups.length, transactions: entries.length }, "embedded chain: journal replayed");
}

/**
 * Moves the chain's clock so the next block carries about `nowSeconds` (a replay leaves it at the
 * last replayed block's time, and the vaults refuse readings from far ahead of the block). Time only
 * moves forward on a chain, so a clock behind the chain is left alone.
 */
export async function alignChainClock(node: Node, nowSeconds: number): Promise<void> {
  const [offset] = await node.batch([{ method: "evm_increaseTime", params: [0] }]);
  const delta = nowSeconds - (Math.floor(Date.now() / 1000) + Number(offset));
  if (delta > 0) await node.batch([{ method: "evm_increaseTime", params: [delta] }]);
}
