// A PostgreSQL server of one test's own that the test can stop and start again on the same data and
// port, to play a database outage without touching the run's shared server (other files use it in
// parallel). As postgres-server.js's: initdb into a temporary folder, loopback only, run as `postgres`
// when we are root, and a small shell holding a pipe from us on its stdin that stops the server and
// removes the folder when the pipe closes, however this process ends. Here the shell also reads
// commands from the pipe: "stop" (fast shutdown, every connection dropped) and "start".
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { chownSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { findPostgres, POSTGRES_FIX } from "./postgres-server.js";
import { freePort, waitUntil } from "./util.js";

export interface StoppablePostgres {
  /** The server's own database (user postgres, no password). */
  url: string;
  /** A new empty database on it; its URL. */
  database(): Promise<string>;
  /** Fast shutdown: resolves once the server no longer accepts connections. */
  stop(): Promise<void>;
  /** Starts it again on the same data and port; resolves once it answers. */
  start(): Promise<void>;
  /** Stops it for good and removes its folder. */
  close(): Promise<void>;
}

// $1 bin folder, $2 our folder, $3 port. One line per command on stdin; end of input ends it all.
const SUPERVISOR = `
run() {
  "$1/postgres" -D "$2/data" -p "$3" -k "$2" -c listen_addresses=127.0.0.1 -c max_connections=200 \\
    -c shared_buffers=32MB -c log_min_messages=warning -c fsync=off </dev/null >>"$2/server.log" 2>&1 &
  pg=$!
}
halt() {
  if [ -n "$pg" ]; then kill -INT $pg 2>/dev/null; wait $pg; pg=; fi
}
run "$@"
while read cmd; do
  case "$cmd" in
    stop) halt; echo stopped ;;
    start) run "$@"; echo started ;;
  esac
done
halt
rm -rf "$2"
`;

function serverUser(): { uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return {};
  const id = (flag: string) => Number(execFileSync("id", [flag, "postgres"], { encoding: "utf8" }).trim());
  return { uid: id("-u"), gid: id("-g") };
}

async function answers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

export async function startStoppablePostgres(): Promise<StoppablePostgres> {
  const found = findPostgres();
  if ("problem" in found) throw new Error(`${found.problem}; ${POSTGRES_FIX}`);
  const user = serverUser();
  const dir = mkdtempSync(join(tmpdir(), "tradevault-pg-own-"));
  if (user.uid !== undefined) chownSync(dir, user.uid, user.gid!);
  const init = spawnSync(join(found.bin, "initdb"), ["-D", join(dir, "data"), "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync"], { ...user, encoding: "utf8" });
  if (init.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`initdb failed: ${(init.stderr || init.stdout || String(init.error)).trim()}`);
  }
  const port = await freePort();
  const child = spawn("sh", ["-c", SUPERVISOR, "sh", found.bin, dir, String(port)], { ...user, stdio: ["pipe", "pipe", "ignore"], detached: true });
  child.unref();
  (child.stdin as unknown as { unref(): void }).unref();
  (child.stdout as unknown as { unref(): void }).unref();
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  let said = "";
  child.stdout!.on("data", (d) => (said += String(d)));
  /** Sends a command and waits for the shell's answer to it. */
  const command = async (cmd: "stop" | "start", answer: string) => {
    const before = said.split(answer).length;
    child.stdin!.write(`${cmd}\n`);
    await waitUntil(() => said.split(answer).length > before || child.exitCode !== null, { slowMs: 120_000, what: `PostgreSQL ${cmd}` });
  };
  const up = () => waitUntil(() => answers(url), { slowMs: 120_000, intervalMs: 50, what: `PostgreSQL answering at ${url}` });
  try {
    await up();
  } catch (err) {
    child.stdin!.end();
    await exited;
    throw err;
  }
  return {
    url,
    async database() {
      const name = `t_${Math.random().toString(16).slice(2, 14)}`;
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(`create database ${name}`);
      } finally {
        await client.end();
      }
      const u = new URL(url);
      u.pathname = `/${name}`;
      return u.toString();
    },
    stop: () => command("stop", "stopped"),
    async start() {
      await command("start", "started");
      await up();
    },
    async close() {
      child.ref(); // keep this process alive until the server is gone
      child.stdin!.end();
      await exited;
    },
  };
}
