// PostgreSQL stopped under a running daemon: every request answers 503 SERVICE_UNAVAILABLE with
// Retry-After (never 500: an outage is no defect), and the daemon comes back alone once the server
// does. The server is the test's own (helpers/postgres-stoppable.ts): the run's shared one stays up.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { randomWallet, signIn, startTestDaemon, trader, type Reply, type TestDaemon } from "../helpers/daemon.js";
import { startStoppablePostgres, type StoppablePostgres } from "../helpers/postgres-stoppable.js";
import { only } from "../helpers/stores.js";
import { waitUntil } from "../helpers/util.js";

let server: StoppablePostgres | undefined;
let d: TestDaemon | undefined;
test.after(async () => {
  await d?.close().catch(() => undefined);
  await server?.close();
});

function unavailable(what: string, r: Reply): void {
  assert.is(r.status, 503, `${what}: ${JSON.stringify(r.body)}`);
  assert.is(r.body?.error?.code, "SERVICE_UNAVAILABLE", what);
  assert.ok(Number(r.headers.get("retry-after")) >= 1, `${what}: Retry-After ${r.headers.get("retry-after")}`);
}

only("postgres", test)("PostgreSQL stopped: reads, orders and sign-ins answer 503 with Retry-After; the daemon recovers alone", async () => {
  server = await startStoppablePostgres();
  const databaseUrl = await server.database();
  d = await startTestDaemon({ config: { databaseUrl }, startOracle: false });
  const { token } = await trader(d);
  const order = { symbol: "BTC", side: "buy", size: "0.001" };
  assert.is((await d.http.get("/api/vaults", { token })).status, 200);
  // Signed in but not yet known to this process's session cache: its first request reads the database.
  const later = await signIn(d.http, randomWallet());

  await server.stop();
  const http = d.http;
  unavailable("GET /api/vaults", await http.get("/api/vaults", { token }));
  unavailable("GET /api/proposals", await http.get("/api/proposals", { token }));
  unavailable("GET /api/notices", await http.get("/api/notices", { token }));
  unavailable("POST /api/trade", await http.post("/api/trade", order, { token }));
  unavailable("POST /api/trade with an Idempotency-Key", await http.post("/api/trade", order, { token, headers: { "Idempotency-Key": "outage-1" } }));
  // The challenge is stateless (no database); the login stores a session.
  const wallet = randomWallet();
  const challenge = await http.post("/api/auth/challenge", { address: wallet.address });
  const signature = await wallet.signMessage(challenge.body.data.message);
  unavailable("POST /api/auth/login", await http.post("/api/auth/login", { address: wallet.address, signature, nonce: challenge.body.data.nonce }));
  unavailable("POST /api/webhooks", await http.post("/api/webhooks", { url: "https://example.com/hook" }, { token }));
  unavailable("GET /api/vaults, an uncached session", await http.get("/api/vaults", { token: later.token }));
  assert.is((await http.get("/healthz")).status, 503);

  await server.start();
  // Nothing restarts the daemon: its pool opens new connections as requests come.
  await waitUntil(async () => (await http.get("/api/vaults", { token })).status === 200, { slowMs: 60_000, what: "reads after the restart" });
  const placed = await http.post("/api/trade", order, { token, headers: { "Idempotency-Key": "outage-1" } });
  assert.is(placed.status, 200, JSON.stringify(placed.body));
  assert.is((await http.get("/api/vaults", { token: later.token })).status, 200);
  await waitUntil(async () => (await http.get("/healthz")).status === 200, { slowMs: 60_000, what: "/healthz after the restart" });
});

test.run();
