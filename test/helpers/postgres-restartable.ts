// A PostgreSQL server of a test's own that the test can stop and start again on the same port and
// data (an outage), unlike the run's shared one. As postgres-server.js does, a small shell holds a
// pipe from us: it reads "stop" and "start" lines, answers each on stdout when done, and stops the
// server and removes its folder when the pipe closes (we ended, however we ended).
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { chownSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import pg from "pg";
import { findPostgres, POSTGRES_FIX } from "./postgres-server.js";
import { freePort, waitUntil } from "./util.js";

export interface RestartableServer {
  /** The `postgres` database (user postgres, trust auth, loopback only). */
  url: string;
  /** Fast shutdown (sessions ended with 57P01); resolves once the server is gone. */
  stop(): Promise<void>;
  /** Starts it again; resolves once it answers. */
  start(): Promise<void>;
  /** Stops it for good and removes its folder. */
  close(): Promise<void>;
}

const SUPERVISOR = `
bin="$1"; dir="$2"; port="$3"
up() {
  "$bin/postgres" -D "$dir/data" -p "$port" -k "$dir" -c listen_addresses=127.0.0.1 -c max_connections=100 \\
    -c shared_buffers=16MB -c log_min_messages=warning </dev/null >>"$dir/server.log" 2>&1 &
  pg=$!
}
up
while read cmd; do
  case "$cmd" in
    stop) kill -INT $pg 2>/dev/null; wait $pg; echo stopped ;;
    start) up; echo started ;;
  esac
done
kill -INT $pg 2>/dev/null
wait $pg
rm -rf "$dir"
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

export async function startRestartableServer(): Promise<RestartableServer> {
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
  const replies = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const up = () => waitUntil(() => answers(url), { timeoutMs: 120_000, what: "the test's PostgreSQL server to answer" });
  const command = async (cmd: "stop" | "start") => {
    child.stdin!.write(`${cmd}\n`);
    await replies.next();
  };
  await up();
  return {
    url,
    stop: () => command("stop"),
    async start() {
      await command("start");
      await up();
    },
    async close() {
      child.ref(); // keep this process alive until the server is gone
      child.stdin!.end();
      await exited;
    },
  };
}

/** A new empty database on `server`; its URL. */
export async function databaseOn(server: { url: string }, name: string): Promise<string> {
  const client = new pg.Client({ connectionString: server.url });
  await client.connect();
  try {
    await client.query(`create database ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(server.url);
  url.pathname = `/${name}`;
  return url.toString();
}
