// Built `tradevaultd` processes as an operator runs them (bin/tradevaultd, so `npm run build` first):
// a daemon or a `--sim-only` exchange, each its own process on a free loopback port, its output kept
// (the last part) for the error a failed start reports. Stopped with SIGTERM (a daemon then hands its
// leases back) or killed with SIGKILL (as a box dies).
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { freePort, waitUntil } from "../../test/helpers/util.js";

const BIN = fileURLToPath(new URL("../../bin/tradevaultd", import.meta.url));

export interface Tradevaultd {
  url: string;
  pid: number;
  /** The last 20,000 characters it wrote. */
  log(): string;
  /** Peak resident set, KiB (Linux's VmHWM, read last just before it was stopped; 0 without /proc). */
  peakRssKb(): number;
  /** SIGKILL; resolves at exit. */
  kill(): Promise<void>;
  /** SIGTERM; resolves at exit. */
  stop(): Promise<void>;
}

/** Starts `tradevaultd <args>` and resolves once `readyPath` answers below 500 on `url` (default: its --port). */
export async function startTradevaultd(
  args: string[], opts: { env?: Record<string, string>; readyPath?: string; url?: string; timeoutMs?: number } = {},
): Promise<Tradevaultd> {
  const port = await freePort();
  // TRADEVAULT_* in our own environment would change the daemon's flags.
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("TRADEVAULT_")));
  const child = spawn(process.execPath, [BIN, ...args, "--port", String(port)], {
    env: { ...clean, ...opts.env }, stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  const keep = (d: Buffer) => (out = (out + String(d)).slice(-20_000));
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  const proc = handle(child, opts.url ?? `http://127.0.0.1:${port}`, () => out, exited);
  try {
    await waitUntil(async () => {
      if (child.exitCode !== null) throw new Error(`exited ${child.exitCode}`);
      return (await fetch(`${proc.url}${opts.readyPath ?? "/healthz"}`)).status < 500;
    }, { slowMs: opts.timeoutMs ?? 120_000, intervalMs: 50, what: `tradevaultd ${args.slice(0, 2).join(" ")} at ${proc.url}` });
  } catch (err) {
    await proc.kill();
    throw new Error(`${(err as Error).message}\n${out.slice(-3_000)}`);
  }
  return proc;
}

function handle(child: ChildProcess, url: string, log: () => string, exited: Promise<void>): Tradevaultd {
  let peak = 0;
  const running = () => child.exitCode === null && child.signalCode === null;
  const peakNow = () => (peak = Math.max(peak, running() ? peakRssKb(child.pid!) : 0));
  const signal = async (s: NodeJS.Signals) => {
    if (running()) {
      peakNow();
      child.kill(s);
    }
    await exited;
  };
  return { url, pid: child.pid!, log, peakRssKb: peakNow, kill: () => signal("SIGKILL"), stop: () => signal("SIGTERM") };
}

function peakRssKb(pid: number): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    if (m) return Number(m[1]);
  } catch {
    // not Linux, or already gone
  }
  return 0;
}
