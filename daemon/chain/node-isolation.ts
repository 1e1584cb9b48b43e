// Keeps the embedded node's privileged methods (anvil_impersonateAccount, anvil_setBalance,
// evm_*, eth_sendUnsignedTransaction, ...) to the daemon alone. Anvil 1.7.1 always opens a TCP
// JSON-RPC listener: there is no switch to turn HTTP off, and --host takes no empty list. So:
//
// - the daemon talks to Anvil over its IPC socket, a file in a directory of mode 0700 inside the data
//   directory (other users cannot even reach the socket's name);
// - Anvil runs in a network namespace of its own (`unshare --user --map-root-user --net`): its TCP
//   port exists only in that namespace, where no other process lives, so no local process can
//   connect to it;
// - where the kernel refuses such namespaces (some hardened distributions, container runtimes
//   without the right), Anvil runs in ours, its TCP port on 127.0.0.1 stays open to every local
//   process, and the caller logs that in plain words.
import { execFile } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/** The command prefix that starts a program in new user and network namespaces (unshare execs it: same pid). */
const UNSHARE = ["unshare", "--user", "--map-root-user", "--net", "--"];
/** sockaddr_un holds 108 bytes with the terminating zero; longer socket paths cannot be bound. */
const MAX_SOCKET_PATH = 107;
const SOCKET_NAME = "anvil.ipc";

/** The node's directory inside the data directory: the IPC socket lives there. */
export const nodeSocketDir = (dataDir: string) => join(dataDir, "chain", "node");

/** Whether this machine lets us start a program in its own network namespace (asked once per node start). */
export function canIsolateNetwork(): Promise<boolean> {
  return new Promise((resolve) => {
    execFile(UNSHARE[0]!, [...UNSHARE.slice(1), "true"], { timeout: 5_000 }, (err) => resolve(!err));
  });
}

/** `command` wrapped so it runs in a network namespace of its own. */
export const isolated = (command: string[]): string[] => [...UNSHARE, ...command];

export interface SocketPlace {
  path: string;
  /**
   * Once the node is gone: removes its socket file (Anvil leaves it, and a file copy of the data
   * directory would trip over it) and a temporary directory made for it.
   */
  release(): void;
}

/**
 * The IPC socket's path in `dir`, made mode 0700 (and tightened if it existed looser). When that
 * path is too long for a Unix socket, a fresh 0700 directory under the system's temporary folder
 * instead, removed when the node is released.
 */
export function socketPlace(dir: string): SocketPlace {
  let path = join(dir, SOCKET_NAME);
  let made: string | undefined;
  if (Buffer.byteLength(path) > MAX_SOCKET_PATH) {
    made = mkdtempSync(join(tmpdir(), "tradevault-anvil-")); // mkdtemp makes it 0700
    path = join(made, SOCKET_NAME);
  } else {
    mkdirSync(dirname(dir), { recursive: true });
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700); // mkdir leaves an existing directory's mode as it was
  }
  rmSync(path, { force: true }); // a killed node's socket: connecting to it would only be refused
  return { path, release: () => rmSync(made ?? path, { recursive: true, force: true }) };
}
