// What the daemon learns of an order's end outside the order sync's passes is stored at once: an
// order lookup (GET /api/orders/:orderId), a cancel that finds the order closed (409 ORDER_NOT_OPEN),
// enforcement's cancels. Two passes settling one row change it once, a retry with the order's
// Idempotency-Key still answers as the first request did, and a restart settles what changed at the
// exchange while the daemon was down. The daemons here run an order-sync pass only
// at start (an oracle interval of an hour), so a row that changes did so by the path under test.
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { sql } from "kysely";
import { resolveConfig } from "../../daemon/config.js";
import { createSim } from "../../daemon/main.js";
import { fakeClock, startTestDaemon, trader, type TestDaemon } from "../helpers/daemon.js";
import { rows } from "../helpers/stores.js";
import { freePort, waitUntil } from "../helpers/util.js";
import { breach, vaultCase } from "../helpers/vaults.js";

const HOURLY = { oracleInterval: 3600, staleAfter: 3600 };
const t = suite<{ d: TestDaemon; token: string }>("order rows");
t.before(async (ctx) => {
  // The clock runs with the wall clock, as the embedded chain's does (the vault test needs it).
  ctx.d = await startTestDaemon({ config: HOURLY, startOracle: false, clock: fakeClock(Date.now(), { realTime: true }) });
  ctx.token = (await trader(ctx.d)).token;
});
t.after(async (ctx) => {
  await ctx.d.close();
});

const row = async (d: TestDaemon, oid: number) => (await rows(d.daemon.store, sql<any>`select * from orders where oid = ${oid}`))[0];

async function place(d: TestDaemon, token: string, body: Record<string, unknown>): Promise<number> {
  const r = await d.http.post("/api/trade", body, { token });
  assert.is(r.status, 200, JSON.stringify(r.body));
  return r.body.data.orderId;
}

/** A resting SOL buy at 140 that the mark then falls through: filled at the exchange, resting in the row. */
async function filledBehind(d: TestDaemon, token: string): Promise<number> {
  d.daemon.sim!.setPrice("SOL", "150");
  const oid = await place(d, token, { symbol: "SOL", side: "buy", size: 1, price: 140 });
  d.daemon.sim!.setPrice("SOL", "139");
  const lookup = await d.daemon.exchange.orderStatus((await row(d, oid)).account, oid);
  assert.ok(lookup.found && lookup.status === "filled", "filled at the exchange");
  assert.is((await row(d, oid)).status, "resting", "no pass has run since");
  return oid;
}

t("GET /api/orders/:orderId that finds the order filled stores it", async ({ d, token }) => {
  const oid = await filledBehind(d, token);
  const r = await d.http.get(`/api/orders/${oid}`, { token });
  assert.is(r.body.data.order.status, "filled");
  const stored = await row(d, oid);
  assert.is(stored.status, "filled");
  assert.is(stored.filled_size, "1");
});

t("a cancel answered 409 ORDER_NOT_OPEN stores how the order ended", async ({ d, token }) => {
  const oid = await filledBehind(d, token);
  const r = await d.http.del(`/api/orders/${oid}`, { token });
  assert.is(r.status, 409);
  assert.is(r.body.error.code, "ORDER_NOT_OPEN");
  assert.is((await row(d, oid)).status, "filled");
});

t("two passes at once (two daemons on one store) settle the row once, with one answer", async ({ d, token }) => {
  const oid = await filledBehind(d, token);
  const before = await row(d, oid);
  const settled = await Promise.all([d.daemon.services.orderSync.pass(), d.daemon.services.orderSync.pass()]);
  assert.is(settled[0]! + settled[1]!, 1, `one pass changed it: ${settled}`);
  const after = await row(d, oid);
  assert.equal({ ...after, status: "resting", filled_size: null, updated_at: before.updated_at }, before, "only the status, the size and the time changed");
  assert.is(after.filled_size, "1");
  assert.is(await d.daemon.services.orderSync.pass(), 0, "a later pass finds nothing to do");
});

t("a retry with the Idempotency-Key of an order that filled later answers as the first request did", async ({ d, token }) => {
  d.daemon.sim!.setPrice("SOL", "150");
  const body = { symbol: "SOL", side: "buy", size: 1, price: 140 };
  const headers = { "Idempotency-Key": "fills-later" };
  const first = await d.http.post("/api/trade", body, { token, headers });
  assert.is(first.status, 200, JSON.stringify(first.body));
  d.daemon.sim!.setPrice("SOL", "139");
  assert.is(await d.daemon.services.orderSync.pass(), 1);
  assert.is((await row(d, first.body.data.orderId)).status, "filled");
  const retry = await d.http.post("/api/trade", body, { token, headers });
  assert.equal(retry.body, first.body, "no fill the first answer did not have");
});

t("enforcement's cancels of a paused vault's orders are stored as they are made", async ({ d }) => {
  const c = await vaultCase(d);
  await breach(c); // long BTC, a resting buy at 40 000, then a breach: the vault pauses and enforcement cancels
  const resting = (await rows(d.daemon.store, sql<any>`select * from orders where vault_address = ${c.vault} and price = '40000'`))[0];
  const r = await waitUntil(async () => {
    const now = await row(d, resting.oid);
    return now.status !== "resting" && now;
  }, { slowMs: 30_000, what: "the canceled order's row" });
  assert.is(r.status, "canceled");
  d.daemon.sim!.setPrice("BTC", "60000");
});

t("a restart settles what changed at the exchange while the daemon was down", async () => {
  const clock = fakeClock(Date.now(), { realTime: true });
  const first = await startTestDaemon({ config: HOURLY, startOracle: false, clock });
  const { token } = await trader(first);
  const oid = await place(first, token, { symbol: "BTC", side: "buy", size: 0.01, price: 50000 });
  await first.daemon.stop();
  // The exchange moves on alone: the sim, on the stopped daemon's data, fills the order.
  const sim = createSim(resolveConfig({ dataDir: first.dataDir, simPort: await freePort(), simFeed: "static", simOnly: true }), clock);
  await sim.start();
  sim.setPrice("BTC", "49000");
  await sim.stop();

  const second = await startTestDaemon({ config: HOURLY, startOracle: false, clock, dataDir: first.dataDir });
  try {
    const r = await waitUntil(async () => {
      const now = await row(second, oid);
      return now.status !== "resting" && now;
    }, { what: "the start's pass to settle the row" });
    assert.is(r.status, "filled");
    assert.is(r.filled_size, "0.01");
  } finally {
    await second.close();
    await first.close().catch(() => undefined);
  }
});

t.run();
