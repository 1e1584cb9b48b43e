// The parent side: forks a worker (a separate Node process, so the load generator and the server
// under test never share an event loop), calls its methods over IPC, and stops it.
import { fork, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

export interface ProcessUsage {
  /** Peak resident set size of the worker process, KiB. */
  maxRssKb: number;
  /** Resident set size now, KiB. */
  rssKb: number;
  /** V8 heap in use now, KiB (the rest of the RSS is native: SQLite, Hardhat's EDR, buffers). */
  heapKb: number;
  /** Memory of C++ objects bound to JS objects (Buffers included), KiB. */
  externalKb: number;
  /** CPU time (user + system) the worker used so far, ms. */
  cpuMs: number;
}

export interface Worker {
  pid: number;
  call<T = any>(method: string, ...args: unknown[]): Promise<T>;
  usage(): Promise<ProcessUsage>;
  /** Starts the worker's CPU profiler; profileStop(file) writes a .cpuprofile (Chrome DevTools format). */
  profileStart(): Promise<void>;
  profileStop(file: string): Promise<void>;
  /** Runs the module's close(), then reports the worker's peak RSS and exits it. */
  stop(): Promise<ProcessUsage>;
}

interface Reply {
  id?: number;
  ready?: boolean;
  ok?: boolean;
  value?: unknown;
  error?: string;
}

const workerPath = fileURLToPath(new URL("./worker.ts", import.meta.url));

/** Starts `modulePath` (absolute path of a module exporting `serve()`) in its own process. */
export async function startWorker(modulePath: string, opts: { execArgv?: string[]; env?: Record<string, string> } = {}): Promise<Worker> {
  const child: ChildProcess = fork(workerPath, [modulePath], {
    execArgv: ["--import", "tsx", ...(opts.execArgv ?? [])],
    env: { ...process.env, ...opts.env },
    stdio: ["ignore", "inherit", "pipe", "ipc"],
  });
  let stderr = "";
  child.stderr!.on("data", (d) => (stderr = (stderr + String(d)).slice(-8_000)));
  const pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  let nextId = 1;
  let exited = false;

  const ready = new Promise<void>((resolve, reject) => {
    child.on("message", (m: Reply) => {
      if (m.ready !== undefined) return m.ready ? resolve() : reject(new Error(`worker ${modulePath} failed to start: ${m.error}`));
      const p = pending.get(m.id!);
      if (!p) return;
      pending.delete(m.id!);
      if (m.ok) p.resolve(m.value);
      else p.reject(new Error(m.error));
    });
    child.on("exit", (code, signal) => {
      exited = true;
      const err = new Error(`worker ${modulePath} exited (${code ?? signal})${stderr ? `:\n${stderr}` : ""}`);
      reject(err);
      for (const p of pending.values()) p.reject(err);
      pending.clear();
    });
  });
  await ready;

  const call = <T>(method: string, ...args: unknown[]): Promise<T> => {
    if (exited) return Promise.reject(new Error(`worker ${modulePath} has exited`));
    const id = nextId++;
    return new Promise<T>((resolve, reject) => {
      pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      child.send({ id, method, args });
    });
  };

  return {
    pid: child.pid!,
    call,
    usage: () => call<ProcessUsage>("__usage"),
    profileStart: () => call("__profile", "start"),
    profileStop: (file) => call("__profile", file),
    async stop() {
      const done = new Promise((r) => child.once("exit", r));
      // A worker that cannot stop in a minute is killed (its temporary directory may then stay behind).
      const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
      try {
        const usage = await call<ProcessUsage>("__stop");
        await done;
        return usage;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/** Starts a worker, hands it to `fn`, and always stops it; returns fn's value and the worker's usage. */
export async function withWorker<T>(modulePath: string, fn: (w: Worker) => Promise<T>, opts?: Parameters<typeof startWorker>[1]) {
  const w = await startWorker(modulePath, opts);
  let value: T;
  try {
    value = await fn(w);
  } catch (err) {
    await w.stop().catch(() => undefined);
    throw err;
  }
  const usage = await w.stop();
  return { value, usage };
}
