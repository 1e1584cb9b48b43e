// PostgreSQL for tests: one server per test run (scripts/run-tests.js starts it and passes its URL in
// TRADEVAULT_TEST_PG_URL), or, for a file run alone with TRADEVAULT_TEST_PG=1, one per process that
// goes away with the process. Every store gets a fresh empty database on it.
import { randomBytes } from "node:crypto";
import pg from "pg";
import { startPostgresServer } from "./postgres-server.js";

let server: Promise<{ url: string }> | undefined;

/** The server's own database: where test databases are created. */
function adminUrl(): Promise<string> {
  const given = process.env.TRADEVAULT_TEST_PG_URL;
  if (given) return Promise.resolve(given);
  // Not stopped explicitly: it stops when this process exits (postgres-server.js).
  server ??= startPostgresServer();
  return server.then((s) => s.url);
}

/** A new empty database; its URL. */
export async function freshDatabase(): Promise<string> {
  const admin = await adminUrl();
  const name = `t_${randomBytes(6).toString("hex")}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  try {
    await client.query(`create database ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return url.toString();
}
