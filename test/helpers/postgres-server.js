// A throwaway PostgreSQL server for tests: initdb into a temporary folder, `postgres` on a free
// loopback port, stopped and deleted when its owner stops it or exits in any way (a crash and a
// SIGKILL included). Plain JavaScript so scripts/run-tests.js can start one for a whole run, and the
// tests (helpers/postgres.ts) can start their own when run alone.
//
// PostgreSQL refuses to run as root; when we are root the server runs as the `postgres` user that
// Debian's package creates. The server is started by a small shell that holds a pipe from us on its
// stdin: when that pipe closes (we stopped it, or our process ended however it ended), the shell
// stops the server (fast shutdown) and removes the folder.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";

export const POSTGRES_FIX =
  "install PostgreSQL's server (apt-get install postgresql) or set TRADEVAULT_TEST_PG_BIN to the folder holding its initdb and postgres";

/** @returns {{ bin: string } | { problem: string }} */
export function findPostgres(env = process.env) {
  const given = env.TRADEVAULT_TEST_PG_BIN;
  if (given) return existsSync(join(given, "initdb")) ? { bin: given } : { problem: `TRADEVAULT_TEST_PG_BIN=${given} has no initdb` };
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root)
    ? readdirSync(root).filter((v) => existsSync(join(root, v, "bin", "initdb"))).sort((a, b) => Number(b) - Number(a))
    : [];
  return versions.length > 0 ? { bin: join(root, versions[0], "bin") } : { problem: `no PostgreSQL server found (looked in ${root}/*/bin)` };
}

/** The user the server runs as: ourselves, or `postgres` when we are root. */
function serverUser() {
  if (process.getuid?.() !== 0) return {};
  const id = (flag) => Number(execFileSync("id", [flag, "postgres"], { encoding: "utf8" }).trim());
  try {
    return { uid: id("-u"), gid: id("-g") };
  } catch {
    throw new Error("running as root, and there is no `postgres` user to run PostgreSQL as (the postgresql package creates it)");
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

// $1 bin folder, $2 our folder (data dir, socket and log inside), $3 port.
const SUPERVISOR = `
"$1/postgres" -D "$2/data" -p "$3" -k "$2" -c listen_addresses=127.0.0.1 -c max_connections=300 \\
  -c shared_buffers=32MB -c log_min_messages=warning </dev/null >>"$2/server.log" 2>&1 &
pg=$!
read _ || true
kill -INT $pg 2>/dev/null
wait $pg
rm -rf "$2"
`;

async function ready(url, child, dir, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) break;
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      await client.end();
      return;
    } catch {
      await client.end().catch(() => undefined);
    }
    if (Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const log = existsSync(join(dir, "server.log")) ? readFileSync(join(dir, "server.log"), "utf8").trim().split("\n").slice(-5).join("\n") : "";
  throw new Error(`PostgreSQL did not start within ${timeoutMs} ms${log ? `:\n${log}` : ""}`);
}

/**
 * Starts a server; resolves to its URL (user `postgres`, database `postgres`, no password: it listens
 * on loopback only and lives as long as the test run) and a stop() that waits until it is gone.
 * @returns {Promise<{ url: string; stop(): Promise<void> }>}
 */
// The wait ends when the server answers or its process ends; the bound only stops a server that is
// alive but never answers, and is far beyond any start-up on a loaded machine.
export async function startPostgresServer({ timeoutMs = 5 * 60_000 } = {}) {
  const found = findPostgres();
  if ("problem" in found) throw new Error(`${found.problem}; ${POSTGRES_FIX}`);
  const user = serverUser();
  const dir = mkdtempSync(join(tmpdir(), "tradevault-pg-"));
  if (user.uid !== undefined) chownSync(dir, user.uid, user.gid);
  const init = spawnSync(join(found.bin, "initdb"), ["-D", join(dir, "data"), "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync"], {
    ...user, encoding: "utf8",
  });
  if (init.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`initdb failed: ${(init.stderr || init.stdout || String(init.error)).trim()}`);
  }
  const port = await freePort();
  // Its own process group: a Ctrl-C meant for us must not kill the shell before it cleans up.
  const child = spawn("sh", ["-c", SUPERVISOR, "sh", found.bin, dir, String(port)], { ...user, stdio: ["pipe", "ignore", "ignore"], detached: true });
  child.unref();
  child.stdin.unref();
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  try {
    await ready(url, child, dir, timeoutMs);
  } catch (err) {
    child.stdin.end();
    await exited;
    throw err;
  }
  let stopping;
  return {
    url,
    stop: () => {
      if (!stopping) {
        child.ref(); // keep this process alive until the server is gone
        child.stdin.end();
        stopping = exited.then(() => undefined);
      }
      return stopping;
    },
  };
}
