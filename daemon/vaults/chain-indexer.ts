// The vaults' reading of the chain: VaultFactory and TradingVault events page by page (eth_getLogs
// ranges of at most `pageSize` blocks; HyperEVM answers at most 50) from the block after its cursor,
// up to the head minus the confirmation depth, projected into vaults and vault events
// (vault-events.ts) keyed by (tx hash, log index), the cursor advanced in the same transaction.
// Reading a block twice writes nothing twice. The vaults' own transactions are written through from
// their receipts at once (chain-ops.ts, applyReceipt); when the loop reads them again, the insert keeps
// none twice. Listeners hear only
// rows actually inserted, after the commit.
import { getAddress } from "ethers";
import type { JsonRpcProvider, Log, TransactionReceipt } from "ethers";
import type { Logger } from "pino";
import type { Executor, Store } from "../db/database.js";
import { getCursor, advanceCursor } from "../db/chain-repo.js";
import type { VaultEventRow } from "../db/schema-chain.js";
import { knownVaults } from "../db/vaults-repo.js";
import { plainLogs } from "../chain/decode.js";
import { decodeVaultLogs, eventInterfaces } from "../chain/event-rows.js";
import { applyChainEvents } from "./vault-events.js";
import { backoffMs } from "../lib/backoff.js";

export interface IndexerSettings {
  /** Blocks behind the head the indexer stays (0 on the embedded chain). */
  confirmations: number;
  /** Blocks per eth_getLogs call. */
  pageSize: number;
  /** Pause between polls once caught up. */
  pollMs: number;
}

export interface IndexerOptions {
  store: Pick<Store, "db" | "write">;
  provider: JsonRpcProvider;
  factory: string;
  /** First block that can hold our events (the factory's deployment block). */
  startBlock: number;
  /** Cursor name; one per chain and factory. */
  name: string;
  settings: IndexerSettings;
  log: Logger;
  clock?: () => number;
}

export type EventsListener = (rows: VaultEventRow[]) => void;

export interface StepResult {
  from: number;
  to: number;
  inserted: number;
  /** True when the page reached the (confirmed) head. */
  atHead: boolean;
}

export interface Indexer {
  readonly name: string;
  /** Last block processed. */
  cursor(): Promise<number>;
  /** Processes one page; undefined when already at the head. */
  step(): Promise<StepResult | undefined>;
  /** Pages until the head; returns how many events were inserted. */
  sync(): Promise<number>;
  /** Writes the vault events of a receipt now; returns the rows inserted (none when already there). */
  applyReceipt(receipt: TransactionReceipt, blockTime?: number): Promise<VaultEventRow[]>;
  onEvents(listener: EventsListener): () => void;
  /** Hands daemon-side event rows (written by services) to the same listeners. */
  publish(rows: VaultEventRow[]): void;
  start(): void;
  stop(): Promise<void>;
}

export function createIndexer(opts: IndexerOptions): Indexer {
  const { store, provider, settings, log } = opts;
  const factory = getAddress(opts.factory);
  const clock = opts.clock ?? Date.now;
  const listeners = new Set<EventsListener>();
  let stepping: Promise<unknown> = Promise.resolve();
  let running: Promise<void> | undefined;
  let stopped = false;
  let wake: (() => void) | undefined;
  let warnedBehind = false;

  const cursor = async () => (await getCursor(store.db, opts.name)) ?? opts.startBlock - 1;

  function publish(rows: VaultEventRow[]): void {
    if (rows.length === 0) return;
    for (const l of listeners) {
      try {
        l(rows);
      } catch (e) {
        log.error({ err: e }, "a vault events listener failed");
      }
    }
  }

  async function blockTimes(blocks: number[]): Promise<Map<number, number>> {
    const unique = [...new Set(blocks)];
    const found = await Promise.all(unique.map((b) => provider.getBlock(b)));
    return new Map(unique.map((b, i) => {
      if (!found[i]) throw new Error(`block ${b} not found`);
      return [b, found[i]!.timestamp];
    }));
  }

  /** Decodes, fetches block times (no transaction open during network calls), then writes. */
  async function write(logs: readonly Log[], fixedTime?: number, after?: (trx: Executor) => Promise<void>): Promise<VaultEventRow[]> {
    // ethers hands logs over with checksummed addresses: checksumming again cost a keccak per log.
    const candidates = [...new Set(logs.map((l) => l.address).filter((a) => a !== factory))];
    const known = await knownVaults(store.db, candidates);
    const decoded = decodeVaultLogs(logs, factory, (a) => known.has(a));
    if (decoded.length === 0 && !after) return []; // a receipt with no vault events (a mint, a deploy)
    const times = fixedTime === undefined ? await blockTimes(decoded.map((d) => d.blockNumber)) : undefined;
    const events = decoded.map((d) => ({ ...d, time: fixedTime ?? times!.get(d.blockNumber)! }));
    const nowMs = clock();
    const rows = await store.write(async (trx) => {
      const inserted = await applyChainEvents(trx, events, nowMs);
      await after?.(trx);
      return inserted;
    });
    publish(rows);
    return rows;
  }

  async function stepOnce(): Promise<StepResult | undefined> {
    const from = (await cursor()) + 1;
    const head = (await provider.getBlockNumber()) - settings.confirmations;
    if (head < from) {
      // A chain that went backwards (an external dev node restarted) would otherwise stall silently.
      const behind = head < from - 1;
      if (behind && !warnedBehind) log.warn({ head, cursor: from - 1 }, "the chain head is behind the indexer's cursor");
      warnedBehind = behind;
      return undefined;
    }
    const to = Math.min(head, from + settings.pageSize - 1);
    const logs = await provider.getLogs({ fromBlock: from, toBlock: to, topics: [eventInterfaces().topics] });
    const rows = await write(logs, undefined, (trx) => advanceCursor(trx, opts.name, to));
    return { from, to, inserted: rows.length, atHead: to >= head };
  }

  // Steps run one at a time: sync() from the composition root may overlap the loop.
  function step(): Promise<StepResult | undefined> {
    const run = stepping.then(stepOnce);
    stepping = run.catch(() => {});
    return run;
  }

  async function sync(): Promise<number> {
    let inserted = 0;
    for (;;) {
      const r = await step();
      if (!r) return inserted;
      inserted += r.inserted;
      if (r.atHead) return inserted;
    }
  }

  const sleep = (ms: number) => new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    wake = () => {
      clearTimeout(timer);
      resolve();
    };
  });

  async function loop(): Promise<void> {
    let failures = 0;
    while (!stopped) {
      try {
        const r = await step();
        failures = 0;
        if (!r || r.atHead) await sleep(settings.pollMs);
      } catch (e) {
        failures += 1;
        const backoff = backoffMs(failures + 1, settings.pollMs, 30_000);
        log.warn({ err: e, retryInMs: backoff }, "chain indexer step failed");
        await sleep(backoff);
      }
    }
  }

  return {
    name: opts.name,
    cursor,
    step,
    sync,
    async applyReceipt(receipt, blockTime) {
      const logs = plainLogs(receipt); // not a contract receipt's getter, which decodes every log again on each read
      if (receipt.status !== 1 || logs.length === 0) return [];
      return write(logs, blockTime);
    },
    onEvents(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    publish,
    start() {
      if (running) return;
      stopped = false;
      running = loop();
    },
    async stop() {
      stopped = true;
      wake?.();
      await running;
      running = undefined;
      await stepping;
    },
  };
}
