// Small helpers shared by the test files: temporary folders, free loopback ports, polling.
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export function tempDir(prefix = "tradevault-test-"): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/**
 * A port free now, for a server another process will open. Drawn at random below Linux's ephemeral
 * range (32768-60999): a port the kernel hands out there (to any listen(0), or as the local port of an
 * outgoing connection, of which the suite makes thousands) could be taken before the process binds it.
 */
export async function freePort(): Promise<number> {
  for (let i = 0; i < 100; i++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (await canListen(port)) return port;
  }
  throw new Error("no free port found in 20000-31999");
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.unref();
    srv.once("error", () => resolve(false));
    srv.listen(port, "127.0.0.1", () => srv.close(() => resolve(true)));
  });
}

export interface WaitOptions {
  /** How long the wait takes, with room, on a quiet machine: past it, the wait names itself on stderr and goes on. */
  slowMs?: number;
  intervalMs?: number;
  /** What is awaited; a function is asked when the wait is named (the state it waits on, then). */
  what?: string | (() => string);
}

type Truthy<T> = Exclude<T, undefined | null | false | "" | 0>;

/**
 * Polls `check` until it returns a truthy value, and returns that. There is no deadline: a bound on a
 * wait fails tests on a loaded machine that pass on a quiet one, so only the test runner's whole-file
 * limit ends a wait that never ends, and the note printed past `slowMs` says in that file's log what
 * it was. An error `check` throws counts as "not yet" (a daemon restarting refuses connections).
 */
export async function waitUntil<T>(check: () => T | Promise<T>, o: WaitOptions = {}): Promise<Truthy<T>> {
  const { intervalMs = 25, what = "condition" } = o;
  const slowMs = o.slowMs ?? 10_000;
  const started = Date.now();
  let last: unknown;
  let named = false;
  for (;;) {
    try {
      const value = await check();
      if (value) return value as Truthy<T>;
    } catch (e) {
      last = e;
    }
    if (!named && Date.now() - started > slowMs) {
      named = true;
      const text = typeof what === "function" ? what() : what;
      console.error(`[waitUntil] still waiting after ${slowMs} ms for ${text}${last ? `; last error: ${String(last)}` : ""}`);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/**
 * Resolves as `p` does, however long it takes; past `slowMs` it says on stderr that it still waits
 * for `what` (for a stream's end, or any one-shot promise: a hung file's log then names it).
 */
export async function within<T>(p: Promise<T>, slowMs: number, what: string): Promise<T> {
  const timer = setTimeout(() => console.error(`[within] still waiting after ${slowMs} ms for ${what}`), slowMs);
  try {
    return await p;
  } finally {
    clearTimeout(timer);
  }
}
