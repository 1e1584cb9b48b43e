// Orders whose outcome is in doubt (timeout, 5xx, a dropped connection after the exchange acted)
// end as exactly one order after reconciliation; Idempotency-Key retries place nothing new.
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { startTestDaemon, trader, type TestDaemon } from "../helpers/daemon.js";
import { waitUntil } from "../helpers/util.js";
import { sql } from "kysely";
import { rows } from "../helpers/stores.js";

const t = suite<{ d: TestDaemon; token: string; address: string }>("in-doubt orders");
t.before(async (ctx) => {
  // No oracle: its cycles read the exchange too, and would take the faults these tests queue.
  ctx.d = await startTestDaemon({ config: { exchangeTimeout: 0.5 }, startOracle: false });
  const u = await trader(ctx.d);
  ctx.token = u.token;
  ctx.address = u.wallet.address;
});
t.after(async (ctx) => {
  await ctx.d.close();
});

const orders = (d: TestDaemon) => rows(d.daemon.store, sql<any>`select * from orders order by id`);
const openOn = async (d: TestDaemon, user: string) => (await d.daemon.exchange.openOrders(user)).length;

t("HTTP 500 from the exchange: 502 EXCHANGE_UNAVAILABLE, nothing placed, settled as never placed", async ({ d, token, address }) => {
  const before = await openOn(d, address);
  d.daemon.sim!.faults.next({ kind: "http500" });
  const r = await d.http.post("/api/trade", { symbol: "BTC", side: "buy", size: 0.01, price: 40000 }, { token });
  assert.is(r.status, 502, JSON.stringify(r.body));
  assert.is(r.body.error.code, "EXCHANGE_UNAVAILABLE");
  const cloid = r.body.error.details.cloid;
  assert.match(cloid, /^0x[0-9a-f]{32}$/);
  assert.is(await openOn(d, address), before);
  // once the signed action's expiresAfter has passed, the order can never land: settled as not placed
  d.clock.advance(40_000);
  const settled = await d.daemon.services.reconciler.settle(cloid);
  assert.is(settled?.status, "rejected");
  assert.is(await openOn(d, address), before);
});

t("a dropped connection after the exchange placed the order: 502 with the cloid, then exactly one order", async ({ d, token, address }) => {
  const before = await openOn(d, address);
  d.daemon.sim!.faults.next({ kind: "drop-after-processing" });
  const r = await d.http.post("/api/trade", { symbol: "BTC", side: "buy", size: 0.01, price: 41000 }, { token });
  // The daemon asks the exchange by cloid right away: the order exists, so the trade succeeds.
  assert.is(r.status, 200, JSON.stringify(r.body));
  assert.is(await openOn(d, address), before + 1);
  const row = (await orders(d)).find((o) => o.oid === r.body.data.orderId);
  assert.is(row.status, "resting");
});

t("a timeout while the exchange is also unreachable for lookups stays in doubt, then reconciles to one order", async ({ d, token, address }) => {
  const before = await openOn(d, address);
  // the order is processed but its answer is lost; the immediate lookup fails too, each of its 3 tries
  d.daemon.sim!.faults.next({ kind: "drop-after-processing" });
  d.daemon.sim!.faults.next({ kind: "http500", endpoint: "info", count: 3 });
  const r = await d.http.post("/api/trade", { symbol: "ETH", side: "buy", size: 0.01 * 1, price: 2500 }, { token, headers: { "Idempotency-Key": "doubt-1" } });
  assert.is(r.status, 502, JSON.stringify(r.body));
  assert.is(d.daemon.sim!.faults.pending().length, 0, "three lookups were tried");
  const cloid = r.body.error.details.cloid;
  assert.is((await orders(d)).find((o) => o.cloid === cloid).status, "unknown");
  // a retry with the same key does not sign again: it reports the same doubt
  const retry = await d.http.post("/api/trade", { symbol: "ETH", side: "buy", size: 0.01, price: 2500 }, { token, headers: { "Idempotency-Key": "doubt-1" } });
  assert.is(retry.status, 502);
  assert.is(retry.body.error.details.cloid, cloid);
  // the background sweep settles it
  d.clock.advance(3_000);
  await d.daemon.services.reconciler.settle(cloid);
  const row = (await orders(d)).find((o) => o.cloid === cloid);
  assert.is(row.status, "resting");
  assert.is(await openOn(d, address), before + 1);
  const third = await d.http.post("/api/trade", { symbol: "ETH", side: "buy", size: 0.01, price: 2500 }, { token, headers: { "Idempotency-Key": "doubt-1" } });
  assert.is(third.status, 200);
  assert.is(third.body.data.orderId, row.oid);
  assert.is((await orders(d)).filter((o) => o.idempotency_key === "doubt-1").length, 1);
});

t("a lookup that fails with a retryable error is tried again at once: the order is settled, not left in doubt", async ({ d, token, address }) => {
  const before = await openOn(d, address);
  d.daemon.sim!.faults.next({ kind: "drop-after-processing" });
  d.daemon.sim!.faults.next({ kind: "http500", endpoint: "info", count: 2 });
  const r = await d.http.post("/api/trade", { symbol: "ETH", side: "buy", size: 0.01, price: 2500 }, { token });
  assert.is(r.status, 200, JSON.stringify(r.body));
  assert.is(d.daemon.sim!.faults.pending().length, 0, "two failed lookups, then the third found the order");
  assert.is(await openOn(d, address), before + 1);
  assert.is((await orders(d)).find((o) => o.oid === r.body.data.orderId).status, "resting");
});

t("a hanging exchange times out into 502 and the order is never placed twice", async ({ d, token, address }) => {
  const before = await openOn(d, address);
  d.daemon.sim!.faults.next({ kind: "timeout", delayMs: 2_000 });
  const r = await d.http.post("/api/trade", { symbol: "BTC", side: "sell", size: 0.01, price: 90000 }, { token });
  assert.is(r.status, 502);
  assert.is(await openOn(d, address), before, "a timeout fault is not processed");
  await waitUntil(async () => (await d.daemon.services.reconciler.settle(r.body.error.details.cloid))?.status === "unknown", { slowMs: 3000 });
  d.clock.advance(40_000);
  assert.is((await d.daemon.services.reconciler.settle(r.body.error.details.cloid))?.status, "rejected");
});

t("Idempotency-Key: a retry returns the first result and places nothing new; another body is a conflict", async ({ d, token, address }) => {
  const body = { symbol: "BTC", side: "buy", size: 0.02, price: 42000 };
  const headers = { "Idempotency-Key": "order-7" };
  const first = await d.http.post("/api/trade", body, { token, headers });
  assert.is(first.status, 200);
  const open = await openOn(d, address);
  const second = await d.http.post("/api/trade", body, { token, headers });
  assert.equal(second.body, first.body);
  assert.is(await openOn(d, address), open);
  const other = await d.http.post("/api/trade", { ...body, price: 42001 }, { token, headers });
  assert.is(other.status, 409);
  assert.is(other.body.error.code, "CONFLICT");
  // concurrent retries of a new key: still one order
  const burst = await Promise.all(Array.from({ length: 4 }, () => d.http.post("/api/trade", { ...body, price: 43000 }, { token, headers: { "Idempotency-Key": "burst" } })));
  const ids = new Set(burst.filter((b) => b.status === 200).map((b) => b.body.data.orderId));
  assert.is(ids.size, 1, JSON.stringify(burst.map((b) => b.body)));
  assert.is((await orders(d)).filter((o) => o.idempotency_key === "burst").length, 1);
});

t("a rejected order replays its rejection under the same key", async ({ d, token }) => {
  const body = { symbol: "BTC", side: "buy", size: 50, price: 60000 };
  const headers = { "Idempotency-Key": "too-big" };
  const first = await d.http.post("/api/trade", body, { token, headers });
  assert.is(first.status, 422);
  const again = await d.http.post("/api/trade", body, { token, headers });
  assert.is(again.status, 422);
  assert.is(again.body.error.code, first.body.error.code);
});

t.run();
