// The embedded chain's node: Anvil as a child process with an explicit, fixed configuration. Every
// setting is part of what makes a replay reproduce the old chain exactly: no genesis accounts, base
// fee 0 (so it never moves and any replayed fee still qualifies), a fixed gas limit and hardfork, fifo
// ordering (one sender: a replayed block keeps its order), and the genesis time passed in. History is
// pruned (headers stay; snapshots.ts trims them, see anvil-state.ts). The daemon reaches it over its
// IPC socket only, and Anvil runs in a network namespace of its own where the machine allows it
// (node-isolation.ts): its privileged methods are the daemon's alone.
//
// The child must not outlive the daemon, even a SIGKILLed one: a small sh watchdog starts Anvil and
// waits on a pipe from the daemon; when the pipe closes (the daemon ended, however it ended) it
// stops Anvil. Anvil's own stdout comes straight to the daemon, so its closing means Anvil is gone.
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import type { ChildProcessByStdio } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import { AppError } from "../errors.js";
import { anvilBinary } from "./anvil-binary.js";
import { ipcClient } from "./ipc-client.js";
import type { IpcClient, JsonRpcReply } from "./ipc-client.js";
import { canIsolateNetwork, isolated, socketPlace } from "./node-isolation.js";

export const EMBEDDED_CHAIN_ID = 31337;
/** Matches the contracts' EVM target (cancun) and HyperEVM. */
const HARDFORK = "cancun";
const BLOCK_GAS_LIMIT = 30_000_000;
/**
 * Blocks with transactions whose bodies and receipts Anvil keeps; older ones are dropped (headers
 * stay). Each kept transaction carries its execution trace into every state dump (about 290 kB for an
 * oracle batch of 100 vaults), so this bounds a snapshot's cost: at 256 a dump was 76 MB of JSON and
 * held Anvil for 1.5 s. The sender settles a flight within a second of its receipt, and the indexer
 * follows within a poll, so 64 operator transactions is room enough.
 */
export const TRANSACTION_BLOCK_KEEPER = 64;
const START_TIMEOUT_MS = 30_000;

/** The EIP-1193 surface, over IPC to the node. */
export interface Eip1193 {
  request(args: { method: string; params?: unknown[] }): Promise<unknown>;
}

export interface RpcCall {
  method: string;
  params?: unknown[];
}

export interface EmbeddedNode {
  /** The IPC socket the daemon talks to the node through. */
  ipcPath: string;
  /** Anvil's own process id (not the watchdog's). */
  pid: number;
  /** True when Anvil runs in a network namespace of its own, so no other process can reach its TCP port. */
  isolated: boolean;
  /** The TCP port Anvil listens on: in its own namespace when isolated, else on 127.0.0.1 for any local process. */
  tcpPort: number;
  /** Only with `httpPort` (a test's stand-in for an external node): http://127.0.0.1:<httpPort>. */
  url?: string;
  /** Raw JSON-RPC over IPC, for the gate and the public proxy. */
  ipc: IpcClient;
  rpc: Eip1193;
  /**
   * Several calls in one JSON-RPC batch, answers in call order; the first error rejects. Anvil runs a
   * batch's calls concurrently: only for calls whose relative order does not matter.
   */
  batch(calls: RpcCall[]): Promise<unknown[]>;
  /** Resolves when Anvil is gone, whether stopped or killed. */
  exited: Promise<void>;
  stop(): Promise<void>;
}

export interface NodeOptions {
  /** Where the IPC socket goes (made 0700); see node-isolation.ts. */
  socketDir: string;
  /** Block 0's timestamp (Unix seconds); only matters for a chain started from genesis. */
  genesisTime: number;
  /** Keep every block and historical state (no pruning): an archive node, as tests use for an external chain. */
  archive?: boolean;
  /**
   * Serve HTTP JSON-RPC on 127.0.0.1:httpPort to anyone, not isolated: only for a test's stand-in of
   * an external chain, never for the daemon's embedded chain.
   */
  httpPort?: number;
}

// $0 is a label, "$@" the command (Anvil, or unshare that execs Anvil under the same pid). Background
// jobs of a non-interactive sh read /dev/null, so only the watchdog reads the daemon's pipe; it hands
// its copy of stdout and stderr back, keeping Anvil's alone.
const WATCHDOG = [
  '"$@" & child=$!',
  'echo "anvil-pid $child"',
  "exec >/dev/null 2>&1",
  "while read -r _; do :; done",
  'kill -TERM "$child" 2>/dev/null',
  'wait "$child"',
].join("\n");

function anvilArgs(opts: NodeOptions, ipcPath: string, port: number): string[] {
  return [
    "--ipc", ipcPath, "--host", "127.0.0.1", "--port", String(port),
    "--chain-id", String(EMBEDDED_CHAIN_ID), "--hardfork", HARDFORK, "--gas-limit", String(BLOCK_GAS_LIMIT),
    "--base-fee", "0", "--accounts", "0", "--timestamp", String(opts.genesisTime), "--order", "fifo",
    ...(opts.archive ? [] : ["--prune-history", "--transaction-block-keeper", String(TRANSACTION_BLOCK_KEEPER)]),
    // Snapshots go back in through anvil_loadState, larger than Anvil's 2 MB default request limit.
    "--no-request-size-limit", "--no-cors", "--quiet",
  ];
}

export class RpcError extends Error {
  constructor(readonly method: string, readonly code: number, message: string, readonly data?: unknown) {
    super(`${method}: ${message}`);
    this.name = "RpcError";
  }
}

function unwrap(call: RpcCall, r: JsonRpcReply | undefined): unknown {
  if (!r) throw new AppError("CHAIN_UNAVAILABLE", `${call.method}: no answer in the batch`, { retryable: true });
  if (r.error) throw new RpcError(call.method, r.error.code, r.error.message, r.error.data);
  return r.result;
}

const rpcOver = (ipc: IpcClient): Pick<EmbeddedNode, "rpc" | "batch"> => ({
  rpc: { request: async (call) => unwrap(call, await ipc.call({ id: 1, ...call })) },
  batch: async (calls) => {
    const replies = await ipc.batch(calls.map((c, id) => ({ id, ...c })));
    return calls.map((c, i) => unwrap(c, replies[i]));
  },
});

type Child = ChildProcessByStdio<Writable, Readable, Readable>;

/** A free loopback port: Anvil, run quiet, cannot tell us one it picked itself. */
function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** Whether the node answers eth_chainId within a second (a socket that accepts but never answers is not ready). */
function answers(ipc: IpcClient): Promise<boolean> {
  const asked = ipc.call({ method: "eth_chainId" }).then((r) => !r.error, () => false);
  return Promise.race([asked, new Promise<boolean>((r) => setTimeout(r, 1_000, false).unref())]);
}

/** The watchdog's pid line, then Anvil answering eth_chainId over IPC; fails if Anvil ends first. */
async function whenReady(child: Child, ipc: IpcClient, exited: Promise<void>): Promise<number> {
  let out = "";
  let err = "";
  let gone = false;
  void exited.then(() => (gone = true));
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr.on("data", (d: Buffer) => (err += d.toString()));
  const fail = (why: string) =>
    new AppError("CHAIN_UNAVAILABLE", `the embedded chain (Anvil) did not start: ${why}${err ? `: ${err.trim().slice(-500)}` : ""}`);
  for (const deadline = Date.now() + START_TIMEOUT_MS; Date.now() < deadline; ) {
    if (gone) throw fail("it exited");
    const pid = Number(/anvil-pid (\d+)/.exec(out)?.[1] ?? 0);
    if (pid && (await answers(ipc))) return pid;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw fail(`no answer within ${START_TIMEOUT_MS} ms`);
}

/** Starts Anvil (isolated where the machine allows) and waits until it answers on its IPC socket. */
export async function startEmbeddedNode(opts: NodeOptions): Promise<EmbeddedNode> {
  const bin = anvilBinary();
  const place = socketPlace(opts.socketDir);
  const isolate = opts.httpPort === undefined && (await canIsolateNetwork());
  // In its own namespace any port is free; in ours we pick one, so the log can name what stays open.
  const tcpPort = isolate ? 8545 : opts.httpPort || (await freeLoopbackPort());
  const anvil = [bin.path, ...anvilArgs(opts, place.path, tcpPort)];
  const child: Child = spawn("sh", ["-c", WATCHDOG, "anvil-watchdog", ...(isolate ? isolated(anvil) : anvil)], { stdio: ["pipe", "pipe", "pipe"] });
  const exited = new Promise<void>((resolve) => child.stdout.once("close", () => resolve()));
  const ipc = ipcClient(place.path);
  // Anvil gone on its own: release the watchdog too, or it (and our pipe to it) would live on and keep
  // the daemon's process from ever exiting.
  void exited.then(() => {
    child.stdin.end();
    ipc.close();
    place.release();
  });
  child.once("error", () => undefined); // no sh: whenReady reports it (stdout closes)
  let pid: number;
  try {
    pid = await whenReady(child, ipc, exited);
  } catch (e) {
    child.stdin.end();
    throw e;
  }
  return {
    ipcPath: place.path, pid, isolated: isolate, tcpPort, ipc, exited, ...rpcOver(ipc),
    ...(opts.httpPort !== undefined ? { url: `http://127.0.0.1:${tcpPort}` } : {}),
    async stop() {
      child.stdin.end(); // the watchdog sends SIGTERM and waits
      const timer = setTimeout(() => {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          /* already gone */
        }
      }, 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
