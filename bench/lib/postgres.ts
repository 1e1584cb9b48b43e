// A PostgreSQL server of the benchmark's own, started and stopped as the test suite's is
// (test/helpers/postgres-server.js: a temporary folder, a free loopback port, run as `postgres` when we
// are root), with empty databases made on it on demand. Where no server is installed the caller is
// told why, so it can skip what needs one instead of failing.
import { randomBytes } from "node:crypto";
import pg from "pg";
import { findPostgres, POSTGRES_FIX, startPostgresServer } from "../../test/helpers/postgres-server.js";

export interface BenchPostgres {
  /** A new empty database (the server was made with the C locale, as the README asks); its URL. */
  database(): Promise<string>;
  stop(): Promise<void>;
}

/** The server, or why there is none (PostgreSQL is not installed). */
export async function startBenchPostgres(): Promise<BenchPostgres | { problem: string }> {
  const found = findPostgres();
  if ("problem" in found) return { problem: `${found.problem}; ${POSTGRES_FIX}` };
  const server = await startPostgresServer();
  return {
    async database() {
      const name = `bench_${randomBytes(6).toString("hex")}`;
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
    },
    stop: () => server.stop(),
  };
}
