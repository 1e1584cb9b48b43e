// Rebuilds a forgotten embedded chain from the operator's journal. The operator sends every
// transaction there, so replaying its signed raw transactions in order, each original block at its
// original number and timestamp, yields the same chain: same transaction hashes, same contract and
// vault addresses (CREATE from the same nonces, CREATE2 from the same terms), same logs at the same
// (tx hash, log index), and the same balances. Nothing new reaches the event table.
import type { Logger } from "pino";
import { AppError } from "../errors.js";
import type { Eip1193 } from "./embedded-node.js";

export interface ReplayEntry {
  hash: string;
  raw: string;
  blockNumber: number;
  blockTime: number;
  /** How it ended the first time; the replay must end the same way. */
  reverted: boolean;
}

interface RpcBlock {
  number: string;
  timestamp: string;
  transactions: string[];
}

interface Head {
  number: number;
  time: number;
}

const hex = (n: number) => `0x${n.toString(16)}`;

function rpcOf(rpc: Eip1193) {
  return <T>(method: string, ...params: unknown[]) => rpc.request({ method, params }) as Promise<T>;
}

async function latest(call: ReturnType<typeof rpcOf>): Promise<Head> {
  const b = await call<RpcBlock>("eth_getBlockByNumber", "latest", false);
  return { number: Number(b.number), time: Number(b.timestamp) };
}

/**
 * Mines `count` empty blocks after `head` with timestamps below `before`, so the next replayed block
 * keeps its original number (blocks the first chain mined without our transactions, e.g. evm_mine).
 */
async function fillGap(call: ReturnType<typeof rpcOf>, head: Head, count: number, before: number, log: Logger) {
  const fits = Math.min(count, before - head.time - 1);
  // Normal, not a fault: the first chain mined several blocks in one second (automine), a replay needs
  // a second per block. Only block numbers shift; events are keyed by (tx hash, log index) and the
  // head is brought back up to the indexer's cursor at the end, so nothing is lost or repeated.
  if (fits < count) log.debug({ count, fits }, "chain rebuild: fewer empty blocks fit than the original chain had");
  if (fits <= 0) return;
  await call("evm_setNextBlockTimestamp", hex(head.time + 1));
  await call("hardhat_mine", hex(fits), "0x1");
}

/** Replays one original block; returns the new head. */
async function replayBlock(call: ReturnType<typeof rpcOf>, head: Head, blockNumber: number, group: ReplayEntry[], log: Logger): Promise<Head> {
  const blockTime = group[0]!.blockTime;
  await fillGap(call, head, blockNumber - 1 - head.number, blockTime, log);
  await call("evm_setNextBlockTimestamp", hex(blockTime));
  for (const e of group) await call("eth_sendRawTransaction", e.raw);
  await call("evm_mine");
  const mined = await call<RpcBlock>("eth_getBlockByNumber", "latest", false);
  const expected = group.map((e) => e.hash.toLowerCase());
  const got = mined.transactions.map((h) => h.toLowerCase());
  if (got.join() !== expected.join()) {
    throw new AppError("INTERNAL", `chain rebuild diverged at block ${blockNumber}`, { details: { expected, got } });
  }
  // Same transactions, same (tx hash, log index): only the block number recorded with old events is off.
  if (Number(mined.number) !== blockNumber) log.debug({ blockNumber, now: Number(mined.number) }, "chain rebuild: a block moved");
  for (const e of group) {
    const receipt = await call<{ status: string }>("eth_getTransactionReceipt", e.hash);
    // Only a transaction from outside the journal (someone else's, on a dev chain) can change an
    // outcome. The chain then differs from the database; say so loudly, but keep the daemon running.
    if ((receipt.status === "0x0") !== e.reverted) {
      log.error({ txHash: e.hash, blockNumber, revertedBefore: e.reverted }, "chain rebuild: a transaction ended differently than the first time");
    }
  }
  return { number: Number(mined.number), time: blockTime };
}

/**
 * Replays `entries` (chain order) onto a fresh chain whose genesis matches the original one, then
 * mines empty blocks up to `minHead` (blocks the indexer has already passed must exist again).
 */
export async function replayJournal(rpc: Eip1193, entries: ReplayEntry[], opts: { minHead: number; log: Logger }): Promise<void> {
  const call = rpcOf(rpc);
  const groups = new Map<number, ReplayEntry[]>();
  for (const e of entries) groups.set(e.blockNumber, [...(groups.get(e.blockNumber) ?? []), e]);
  await call("evm_setAutomine", false);
  try {
    let head = await latest(call);
    for (const [blockNumber, group] of [...groups].sort((a, b) => a[0] - b[0])) {
      head = await replayBlock(call, head, blockNumber, group, opts.log);
    }
    if (head.number < opts.minHead) {
      await call("evm_setNextBlockTimestamp", hex(head.time + 1));
      await call("hardhat_mine", hex(opts.minHead - head.number), "0x1");
    }
  } finally {
    await call("evm_setAutomine", true);
  }
  opts.log.info({ blocks: groups.size, transactions: entries.length }, "embedded chain rebuilt from the journal");
}

/**
 * Moves the chain's clock so the next block carries about `nowSeconds` (a replay leaves it at the
 * last replayed block's time, and the vaults refuse readings from far ahead of the block). Time only
 * moves forward on a chain, so a clock behind the chain is left alone.
 */
export async function alignChainClock(rpc: Eip1193, nowSeconds: number): Promise<void> {
  const call = rpcOf(rpc);
  const offset = Number(await call<number | string>("evm_increaseTime", 0));
  const delta = nowSeconds - (Math.floor(Date.now() / 1000) + offset);
  if (delta > 0) await call("evm_increaseTime", delta);
}
