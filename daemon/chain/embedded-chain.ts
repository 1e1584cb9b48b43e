// The embedded chain's lifecycle: Anvil started from the newest good snapshot plus the journal after
// it, snapshots taken every so often and at a clean stop, a periodic compaction (snapshot with old
// blocks trimmed, reloaded into a fresh node on the same socket: what keeps memory bounded), and a
// restart from snapshot + journal when Anvil dies under a running daemon. The daemon's provider and the
// public proxy go through rpc-gate.ts, so requests made while the node is replaced wait and then reach
// the new one. The node is reached over IPC only (node-isolation.ts).
import { Transaction, toQuantity } from "ethers";
import type { FetchRequest } from "ethers";
import type { Logger } from "pino";
import type { Store } from "../db/database.js";
import { firstJournalRow, journalFromNonce, lastJournalBlock, snapshotsOf, unsettledJournal } from "../db/chain-repo.js";
import { AppError } from "../errors.js";
import { anvilBinary } from "./anvil-binary.js";
import { loadStateParam } from "./anvil-state.js";
import { alignChainClock, replayJournal, replayPlan } from "./chain-rebuild.js";
import { TRANSACTION_BLOCK_KEEPER, startEmbeddedNode } from "./embedded-node.js";
import type { EmbeddedNode } from "./embedded-node.js";
import { nodeSocketDir } from "./node-isolation.js";
import { rpcGate } from "./rpc-gate.js";
import type { NodeSend } from "./rpc-gate.js";
import { loadableSnapshots, snapshotError, takeSnapshot } from "./snapshots.js";
import type { SnapshotContext } from "./snapshots.js";
import { backoffMs } from "../lib/backoff.js";

/** The operator's gas on the embedded chain (set at genesis, identically on every rebuild). */
const EMBEDDED_OPERATOR_BALANCE = 10n ** 30n;
/** Blocks a snapshot keeps below the head (more when the indexer is further behind). */
export const SNAPSHOT_KEEP_BLOCKS = TRANSACTION_BLOCK_KEEPER;

export interface EmbeddedChainOptions {
  dataDir: string;
  /** Journal and record key ("31337"). */
  chain: string;
  store: Store;
  log: Logger;
  operator: string;
  genesisTime: number;
  nowS(): number;
  /** The block the indexer has processed: blocks above it are never trimmed. */
  indexedBlock(): Promise<number>;
  /** Seconds between snapshots (when the chain moved). */
  snapshotIntervalS: number;
  /** Blocks between compactions. */
  compactEveryBlocks: number;
}

export interface EmbeddedChain {
  /** For the daemon's JsonRpcProvider: requests pass the gate. */
  request(): FetchRequest;
  /** One JSON-RPC call or batch through the gate (the public proxy's way to the node). */
  send: NodeSend;
  /** The current node's IPC socket and whether it runs in its own network namespace. */
  node(): { ipcPath: string; isolated: boolean; tcpPort: number };
  /** True when this start restored earlier history (a snapshot, the journal, or both). */
  restored: boolean;
  /** Anvil's pid now (it changes with each compaction or restart). */
  pid(): number;
  snapshotAgeSeconds(): number | null;
  /** Why the last snapshot or compaction failed, until one succeeds; null while they succeed (the operator's alerts read it). */
  maintenanceError(): string | null;
  /** Starts the snapshot and compaction timer. */
  startMaintenance(): void;
  snapshot(): Promise<void>;
  compact(): Promise<void>;
  /** Takes a last snapshot (when the chain moved) and stops Anvil. */
  close(): Promise<void>;
  /** close() takes no last snapshot: the data directory is about to be deleted (a test's), so it would be work thrown away. */
  skipLastSnapshot(): void;
}

interface Booted {
  node: EmbeddedNode;
  restored: boolean;
}

async function checkOperator(o: EmbeddedChainOptions): Promise<void> {
  const first = await firstJournalRow(o.store.db, o.chain);
  if (first && Transaction.from(first.raw).from !== o.operator) {
    throw new AppError("INTERNAL", "the chain journal was signed by another operator key; the embedded chain cannot be rebuilt with this one");
  }
}

/** Says plainly when the machine would not give Anvil a network namespace: its TCP port is open to local processes. */
function warnIfExposed(log: Logger, node: EmbeddedNode): void {
  if (node.isolated) return;
  log.warn(
    { port: node.tcpPort },
    `embedded chain: this machine refuses network namespaces (unshare --user --net), so Anvil's own JSON-RPC on 127.0.0.1:${node.tcpPort} ` +
      "is open to every local process, privileged methods (anvil_impersonateAccount, ...) included; the daemon itself uses IPC",
  );
}

/** A node holding the newest snapshot that loads, or a fresh genesis; returns the operator nonce it holds. */
async function nodeFromSnapshots(o: EmbeddedChainOptions): Promise<{ node: EmbeddedNode; nonce: number; loaded: boolean }> {
  const start = () => startEmbeddedNode({ socketDir: nodeSocketDir(o.dataDir), genesisTime: o.genesisTime });
  let node = await start();
  for (const s of await loadableSnapshots(o)) {
    try {
      await node.rpc.request({ method: "anvil_loadState", params: [loadStateParam(s.gz)] });
      o.log.info({ file: s.row.file, height: s.row.height, operatorNonce: s.row.operator_nonce }, "embedded chain: snapshot loaded");
      return { node, nonce: s.row.operator_nonce, loaded: true };
    } catch (e) {
      o.log.warn({ err: snapshotError(s.row, e).message }, "embedded chain: snapshot refused; trying an older one");
      await node.stop(); // a half-applied load must not stay under the next one
      node = await start();
    }
  }
  await node.rpc.request({ method: "anvil_setBalance", params: [o.operator, toQuantity(EMBEDDED_OPERATOR_BALANCE)] });
  return { node, nonce: 0, loaded: false };
}

/** Newest good snapshot, then the journal after it, then the clock brought to the daemon's time. */
async function boot(o: EmbeddedChainOptions): Promise<Booted> {
  await checkOperator(o);
  const { node, nonce, loaded } = await nodeFromSnapshots(o);
  try {
    const plan = replayPlan(await journalFromNonce(o.store.db, o.chain, nonce), nonce);
    const minHead = Math.max(await o.indexedBlock(), await lastJournalBlock(o.store.db, o.chain));
    await replayJournal(node, plan, { minHead, log: o.log });
    await alignChainClock(node, o.nowS());
    return { node, restored: loaded || plan.length > 0 };
  } catch (e) {
    await node.stop();
    throw e;
  }
}

export async function startEmbeddedChain(o: EmbeddedChainOptions): Promise<EmbeddedChain> {
  const booted = await boot(o);
  let node = booted.node;
  const gate = rpcGate(() => node.ipc);
  const snapCtx: SnapshotContext = { ...o, anvilVersion: anvilBinary().version };
  const height = async () => Number(await node.rpc.request({ method: "eth_blockNumber" }));
  let lastSnapshot = (await snapshotsOf(o.store.db, o.chain))[0];
  let compactedAt = await height();
  let stopping = false;
  let lastSnapshotAtClose = true;
  let busy: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  let maintenanceError: string | null = null;

  /** One maintenance step at a time (snapshot, compaction, restart). */
  const serial = (step: () => Promise<void>): Promise<void> => (busy = busy.then(step, step));

  /**
   * The lowest block holding an operator transaction the sender has not settled yet: its receipt must
   * survive the trim, or after a restart the sender finds its nonce used "by an unknown transaction".
   */
  const lowestUnsettledBlock = async (): Promise<number> => {
    let lowest = Number.MAX_SAFE_INTEGER;
    for (const row of await unsettledJournal(o.store.db, o.chain)) {
      const receipt = (await node.rpc.request({ method: "eth_getTransactionReceipt", params: [row.hash] })) as { blockNumber?: string } | null;
      if (receipt?.blockNumber) lowest = Math.min(lowest, Number(receipt.blockNumber));
    }
    return lowest;
  };

  const snapshotNow = async () => {
    const indexed = await o.indexedBlock();
    const unsettled = await lowestUnsettledBlock();
    const taken = await takeSnapshot(snapCtx, node, { keepBlocks: SNAPSHOT_KEEP_BLOCKS, keepFloor: Math.min(indexed + 1, unsettled) });
    lastSnapshot = taken.row;
    return taken;
  };

  function watch(n: EmbeddedNode): void {
    void n.exited.then(() => {
      if (stopping || n !== node) return; // stopped on purpose
      o.log.error({ pid: n.pid }, "embedded chain (Anvil) exited unexpectedly; restarting it from the newest snapshot and the journal");
      void serial(recover);
    });
  }

  /** Boots a new node on the same socket, retrying with backoff until it works or the daemon stops. */
  async function recover(): Promise<void> {
    await gate.close(0); // requests to the dead node fail on their own; new ones wait
    for (let retry = 1; !stopping; retry++) {
      try {
        node = (await boot(o)).node;
        warnIfExposed(o.log, node);
        watch(node);
        compactedAt = await height();
        o.log.info({ pid: node.pid, height: compactedAt }, "embedded chain restarted");
        break;
      } catch (e) {
        const delay = backoffMs(retry, 500, 30_000);
        o.log.error({ err: e, retryInMs: delay }, "embedded chain restart failed");
        await new Promise((r) => setTimeout(r, delay));
      }
    }
    gate.open();
  }

  /** Snapshot behind the closed gate, then the trimmed state into a fresh node: memory back to the state's size. */
  async function compactNow(): Promise<void> {
    if (!(await gate.close(10_000))) o.log.warn("embedded chain compaction: requests still in flight after 10 s; going ahead");
    try {
      const { gz, row } = await snapshotNow();
      const old = node;
      node = undefined as unknown as EmbeddedNode; // the old node's exit is not a crash
      await old.stop();
      try {
        const fresh = await startEmbeddedNode({ socketDir: nodeSocketDir(o.dataDir), genesisTime: o.genesisTime });
        await fresh.rpc.request({ method: "anvil_loadState", params: [loadStateParam(gz)] });
        await alignChainClock(fresh, o.nowS());
        node = fresh;
        watch(node);
        warnIfExposed(o.log, node);
        compactedAt = row.height;
        o.log.info({ height: row.height, snapshotBytes: row.bytes }, "embedded chain compacted");
      } catch (e) {
        o.log.error({ err: e }, "embedded chain compaction could not start the new node; recovering from snapshots");
        await recover();
      }
    } finally {
      gate.open();
    }
  }

  async function tick(): Promise<void> {
    if (stopping) return;
    const h = await height();
    if (h - compactedAt >= o.compactEveryBlocks) return compactNow();
    const age = lastSnapshot ? o.nowS() - lastSnapshot.created_at : Infinity;
    if (h > (lastSnapshot?.height ?? -1) && age >= o.snapshotIntervalS) await snapshotNow();
    maintenanceError = null;
  }

  watch(node);
  warnIfExposed(o.log, node);
  return {
    request: () => gate.request(),
    send: gate.send,
    node: () => ({ ipcPath: node.ipcPath, isolated: node.isolated, tcpPort: node.tcpPort }),
    restored: booted.restored,
    pid: () => node.pid,
    maintenanceError: () => maintenanceError,
    snapshotAgeSeconds: () => (lastSnapshot ? Math.max(0, o.nowS() - lastSnapshot.created_at) : null),
    startMaintenance() {
      const every = Math.min(o.snapshotIntervalS * 1000, 5_000);
      timer = setInterval(() => {
        void serial(tick).catch((e: unknown) => {
          maintenanceError = e instanceof Error ? e.message : String(e);
          o.log.warn({ err: e }, "embedded chain maintenance failed; trying again later");
        });
      }, every);
      timer.unref();
    },
    skipLastSnapshot: () => void (lastSnapshotAtClose = false),
    snapshot: () => serial(async () => void (await snapshotNow())),
    compact: () => serial(compactNow),
    async close() {
      clearInterval(timer);
      stopping = true; // a restart in progress stops retrying; the node's exit below is not a crash
      await busy.catch(() => undefined);
      try {
        if (node && lastSnapshotAtClose && (await height()) > (lastSnapshot?.height ?? -1)) await snapshotNow();
      } catch (e) {
        o.log.warn({ err: e }, "embedded chain: no snapshot at shutdown (the journal replays what it would hold)");
      }
      await node?.stop();
    },
  };
}
