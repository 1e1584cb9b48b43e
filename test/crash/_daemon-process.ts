// The built `tradevaultd` as a child process, as an operator runs it, with what a crash test needs
// around it: the process tree read from /proc (the daemon -> the sh watchdog -> Anvil), a SIGKILL
// that waits for the process to be gone, and the log kept for the failure message.
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { BUSY_MACHINE_FLAGS } from "../helpers/busy-machine.js";
import { waitUntil } from "../helpers/util.js";

const BIN = fileURLToPath(new URL("../../bin/tradevaultd", import.meta.url));

export interface DaemonProcess {
  pid: number;
  url: string;
  /** Everything it printed, stdout and stderr (JSON log lines). */
  log(): string;
  /** Resolves when it has ended, however it ended. */
  exited: Promise<void>;
  running(): boolean;
  /** Its exit code once it has exited (null while running, or when a signal ended it). */
  exitCode(): number | null;
  /** SIGKILL, and wait until it is gone. */
  kill(): Promise<void>;
}

/**
 * Flags for a crash run: the embedded sim and chain, an oracle cycle every second, snapshots and
 * compactions as often as the config allows (so kills land in them), a static price feed (balances
 * move only when the test moves them), and the rate limits and users' read budgets lifted, nothing
 * kept between reads (a test is many users acting at once, reading right after what it did), and
 * the exchange given as long as a busy machine needs.
 */
const crashFlags = (dataDir: string) => [
  "--data-dir", dataDir, "--port", "0", "--host", "127.0.0.1",
  "--oracle-interval", "1", "--stale-after", "120",
  "--chain-snapshot-interval", "1", "--chain-compact-blocks", "100",
  "--sim-feed", "static", "--sign-in-rate-limit", "10000", "--order-rate-limit", "10000",
  "--read-cache", "0", "--read-weight-per-user", "1000000", "--read-weight-all-users", "1000000",
  "--log-level", process.env.TEST_LOG ?? "info", ...BUSY_MACHINE_FLAGS,
];

/**
 * Starts the daemon on `dataDir` (and `extraFlags`) on a port the kernel picks, and resolves once its
 * HTTP API answers. The port is the one its "tradevaultd listening on" log line names (info level:
 * TEST_LOG may ask for more, not less): a port found free here and handed over on the command line is
 * free only until another process takes it, and under load one did (a chain's public RPC port, whose
 * 204 to a JSON body the crash test then read as the daemon's answer).
 */
export async function startDaemonProcess(dataDir: string, extraFlags: string[] = []): Promise<DaemonProcess> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("TRADEVAULT_")));
  const child: ChildProcess = spawn(process.execPath, [BIN, ...crashFlags(dataDir), ...extraFlags], { env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const running = () => child.exitCode === null && child.signalCode === null;
  const listening = () => /tradevaultd listening on (https?:\/\/[^\s"]+)/.exec(out)?.[1];
  const proc: DaemonProcess = {
    pid: child.pid!, url: "", exited, running,
    log: () => out,
    exitCode: () => child.exitCode,
    async kill() {
      if (running()) child.kill("SIGKILL");
      await exited;
    },
  };
  try {
    // Ended (a refused start) also ends the wait.
    await waitUntil(() => !running() || listening(), { slowMs: 90_000, intervalMs: 100, what: `tradevaultd on ${dataDir} to say where it listens` });
    if (!running()) {
      const said = out.split("\n").filter((l) => l.startsWith("tradevaultd")).join("; ");
      throw new Error(`tradevaultd on ${dataDir} ended instead of starting: ${said}`);
    }
    proc.url = listening()!;
    // It logs that line once its routes are in place; a fetch that fails is only "not yet".
    await waitUntil(async () => (await fetch(`${proc.url}/healthz`)).status > 0, { slowMs: 30_000, intervalMs: 100, what: `tradevaultd on ${proc.url} to answer` });
  } catch (e) {
    await proc.kill();
    throw new Error(`${(e as Error).message}\n--- its log ---\n${out.slice(-3000)}`);
  }
  return proc;
}

interface ProcInfo {
  pid: number;
  ppid: number;
  state: string;
  cmdline: string;
}

function procInfo(pid: number): ProcInfo | undefined {
  try {
    // comm (field 2) is in parentheses and may hold spaces: split after the last ')'.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const [state, ppid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ").trim();
    return { pid, ppid: Number(ppid), state: state!, cmdline };
  } catch {
    return undefined; // gone between the listing and the read
  }
}

/** Every live process below `pid` (children, grandchildren...). */
export function descendants(pid: number): ProcInfo[] {
  const all = readdirSync("/proc").filter((d) => /^\d+$/.test(d)).map((d) => procInfo(Number(d))).filter((p) => p !== undefined);
  const found: ProcInfo[] = [];
  const parents = new Set([pid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const p of all) {
      if (parents.has(p.ppid) && !parents.has(p.pid)) {
        parents.add(p.pid);
        found.push(p);
        grew = true;
      }
    }
  }
  return found.filter((p) => p.state !== "Z");
}

const isAnvil = (p: ProcInfo) => /(^|\/)anvil /.test(p.cmdline) && !p.cmdline.startsWith("sh ");

/** The daemon's Anvil (run by its sh watchdog), or undefined while there is none. */
export function anvilOf(daemonPid: number): ProcInfo | undefined {
  return descendants(daemonPid).find(isAnvil);
}

/** True while `pid` runs (a zombie, ended but not yet reaped, counts as gone). */
export function alive(pid: number): boolean {
  const p = procInfo(pid);
  return p !== undefined && p.state !== "Z";
}
