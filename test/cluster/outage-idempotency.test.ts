// An Idempotency-Key duplicate answers the same on every daemon sharing the database: while the
// first request is still with the exchange, 409 CONFLICT with Retry-After (the daemon that has it
// waits for it and answers its answer); once it is settled, the first's answer, wherever it arrives.
// Two daemons in this process on one database, one external chain (Anvil) and one sim exchange.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Wallet, toQuantity } from "ethers";
import { sql } from "kysely";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { startEmbeddedNode, type EmbeddedNode } from "../../daemon/chain/embedded-node.js";
import { resolveConfig } from "../../daemon/config.js";
import { createSim } from "../../daemon/main.js";
import type { SimExchange } from "../../daemon/sim/index.js";
import { approveAgent, fakeClock, randomWallet, signIn, startTestDaemon, type TestDaemon } from "../helpers/daemon.js";
import { freshDatabase } from "../helpers/postgres.js";
import { only, rows } from "../helpers/stores.js";
import { freePort, tempDir, waitUntil } from "../helpers/util.js";

const tmp = tempDir();
let node: EmbeddedNode | undefined;
let sim: SimExchange | undefined;
const daemons: TestDaemon[] = [];
const secret = process.env.TRADEVAULT_SECRET;
test.after(async () => {
  for (const d of daemons.reverse()) await d.close().catch(() => undefined);
  await sim?.stop();
  await node?.stop();
  if (secret === undefined) delete process.env.TRADEVAULT_SECRET;
  else process.env.TRADEVAULT_SECRET = secret;
  tmp.remove();
});

async function cluster(): Promise<[TestDaemon, TestDaemon]> {
  node = await startEmbeddedNode({ socketDir: join(tmp.path, "anvil"), httpPort: await freePort(), genesisTime: Math.floor(Date.now() / 1000), archive: true });
  const operator = Wallet.createRandom();
  const operatorKeyFile = join(tmp.path, "operator.key");
  writeFileSync(operatorKeyFile, operator.privateKey, { mode: 0o600 });
  await node.rpc.request({ method: "anvil_setBalance", params: [operator.address, toQuantity(10n ** 21n)] });
  const clock = fakeClock(Date.now(), { realTime: true });
  sim = createSim(resolveConfig({ dataDir: join(tmp.path, "sim"), simPort: await freePort(), simFeed: "static", simOnly: true }), clock);
  await sim.start();
  // Daemons sharing a database seal the agent keys with one secret.
  process.env.TRADEVAULT_SECRET = "one secret for both daemons";
  const config = { databaseUrl: await freshDatabase(), rpcUrl: node.url!, chainId: 31337, exchangeUrl: sim.url, operatorKeyFile, priceStream: false };
  for (let i = 0; i < 2; i++) daemons.push(await startTestDaemon({ config, clock, startOracle: false }));
  return [daemons[0]!, daemons[1]!];
}

only("postgres", test)("a duplicate on the other daemon: 409 with Retry-After while the first is in flight, then the first's answer", async () => {
  const [a, b] = await cluster();
  const wallet = randomWallet();
  const { token } = await signIn(a.http, wallet);
  const funded = await fetch(`${sim!.url}/sim/faucet`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ user: wallet.address, amount: 100_000 }) });
  assert.is(funded.status, 200, await funded.text());
  await approveAgent(a.http, token, wallet);

  const key = "dup-across-daemons";
  const order = { symbol: "BTC", side: "buy", size: "0.001" };
  const headers = { "Idempotency-Key": key };
  // The exchange holds the first order a while (processed, then answered): it is in flight meanwhile.
  sim!.faults.next({ kind: "delay", actions: ["order"], delayMs: 4_000 });
  const first = a.http.post("/api/trade", order, { token, headers });
  await waitUntil(async () => (await rows(a.daemon.store, sql<{ status: string }>`select status from orders where idempotency_key = ${key}`))[0]?.status === "pending",
    { what: "the first order's row, stored before the exchange call" });
  const [elsewhere, here] = await Promise.all([b.http.post("/api/trade", order, { token, headers }), a.http.post("/api/trade", order, { token, headers })]);
  const answered = await first;
  assert.is(answered.status, 200, JSON.stringify(answered.body));
  assert.is(elsewhere.status, 409, `the other daemon, while the first is in flight: ${JSON.stringify(elsewhere.body)}`);
  assert.is(elsewhere.body.error.code, "CONFLICT");
  assert.ok(Number(elsewhere.headers.get("retry-after")) >= 1, `Retry-After ${elsewhere.headers.get("retry-after")}`);
  // The daemon that has the first waits for it and answers its answer.
  assert.equal(here.body, answered.body);

  const settled = await b.http.post("/api/trade", order, { token, headers });
  assert.is(settled.status, 200, JSON.stringify(settled.body));
  assert.equal(settled.body, answered.body, "the other daemon answers the first's answer once it is settled");
  const stored = await rows(a.daemon.store, sql<{ n: number }>`select count(*) as n from orders where idempotency_key = ${key}`);
  assert.is(Number(stored[0]!.n), 1, "one order for the key");
  assert.is(sim!.requests.filter((r) => (r as { body?: { action?: { type?: string } } }).body?.action?.type === "order").length, 1, "sent to the exchange once");
});

test.run();
