// Idempotency-Key retries that race the first request, made deterministic: the sim holds the first
// request's answer inside the exchange call (a `delay` fault: the order is placed, the answer waits)
// while the retry arrives. A retry that finds the first in flight waits for it (up to 10 s) and
// answers the same; after 10 s it answers 409 CONFLICT with Retry-After: 1; it never answers 502
// while the exchange is fine. And an order settled as never placed frees its key for a new order.
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { fakeClock, simMark, simOrders, startTestDaemon, trader, type Reply, type TestDaemon } from "../helpers/daemon.js";
import { waitUntil } from "../helpers/util.js";

const t = suite<{ d: TestDaemon; token: string }>("idempotency races");
t.before(async (ctx) => {
  // The exchange timeout is above every hold below, so a held order is in flight, never in doubt.
  // The clock runs with the wall clock, so a daemon that measures the 10 s wait with it still sees it pass.
  ctx.d = await startTestDaemon({ config: { exchangeTimeout: 30 }, clock: fakeClock(Date.now(), { realTime: true }) });
  ctx.token = (await trader(ctx.d)).token;
});
t.after.each((ctx) => {
  ctx.d.daemon.sim!.faults.clear();
});
t.after(async (ctx) => {
  await ctx.d.close();
});

let keys = 0;
/** A resting buy far below the market, under an Idempotency-Key unique to the test. */
function order(ctx: { d: TestDaemon; token: string }) {
  const key = `race-${++keys}-${Date.now()}`;
  const body = { symbol: "BTC", side: "buy", size: 0.01, price: 30000 + keys };
  return () => ctx.d.http.post("/api/trade", body, { token: ctx.token, headers: { "Idempotency-Key": key } });
}

/** Each distinct answer once, with how many replies gave it. */
function show(replies: Reply[]): string {
  const seen = new Map<string, number>();
  for (const r of replies) {
    const k = JSON.stringify([r.status, r.body]);
    seen.set(k, (seen.get(k) ?? 0) + 1);
  }
  return [...seen].map(([k, n]) => (n > 1 ? `${n} x ${k}` : k)).join("; ");
}

/** Sends the first request with its exchange answer held for `holdMs`; resolves once it is held. */
async function holdFirst(d: TestDaemon, send: () => Promise<Reply>, holdMs: number) {
  const mark = simMark(d);
  d.daemon.sim!.faults.next({ kind: "delay", endpoint: "exchange", delayMs: holdMs });
  const first = send();
  await waitUntil(() => simOrders(d, mark).some((o) => o.held), { what: "the first order held at the exchange" });
  return { mark, first };
}

t("a retry while the first is held at the exchange waits for it and answers the same; one order", async (ctx) => {
  const send = order(ctx);
  const { mark, first } = await holdFirst(ctx.d, send, 1_500);
  const retry = await send();
  const a = await first;
  assert.is(a.status, 200, show([a]));
  assert.is(retry.status, 200, `the retry waits for the first instead of answering ${show([retry])}`);
  assert.equal(retry.body, a.body);
  assert.is(simOrders(ctx.d, mark).length, 1);
});

t("a retry whose first is still in flight after 10 s answers 409 CONFLICT, Retry-After: 1; the first still lands", async (ctx) => {
  const send = order(ctx);
  // Held 5 s beyond the retry's 10 s wait.
  const { mark, first } = await holdFirst(ctx.d, send, 15_000);
  const retry = await send();
  assert.is(retry.status, 409, show([retry]));
  assert.is(retry.body.error.code, "CONFLICT");
  assert.is(retry.headers.get("retry-after"), "1");
  assert.ok(simOrders(ctx.d, mark)[0]!.held, "answered while the first was still held");
  const a = await first;
  assert.is(a.status, 200, show([a]));
  const later = await send();
  assert.equal([later.status, later.body], [200, a.body], "once the first has its answer, a retry replays it");
  assert.is(simOrders(ctx.d, mark).length, 1);
});

t("20 concurrent requests with one key: one order, every one answers it, none 502", async (ctx) => {
  const send = order(ctx);
  const mark = simMark(ctx.d);
  // Holding the first exchange answer keeps the others arriving while an order is in flight.
  ctx.d.daemon.sim!.faults.next({ kind: "delay", endpoint: "exchange", delayMs: 1_000 });
  const replies = await Promise.all(Array.from({ length: 20 }, send));
  assert.ok(replies.every((r) => r.status !== 502), show(replies));
  assert.ok(replies.every((r) => r.status === 200), show(replies));
  assert.is(new Set(replies.map((r) => r.body.data.orderId)).size, 1, show(replies));
  assert.is(simOrders(ctx.d, mark).length, 1);
});

t("an order that provably never reached the exchange frees its key: after reconciliation a retry places a new order", async (ctx) => {
  const send = order(ctx);
  const mark = simMark(ctx.d);
  ctx.d.daemon.sim!.faults.next({ kind: "http500", endpoint: "exchange" }); // not processed
  const doubt = await send();
  assert.is(doubt.status, 502, show([doubt]));
  const cloid = doubt.body.error.details.cloid;
  // Past the signed order's expiresAfter (30 s) and the reconciler's grace (5 s) it can never land.
  ctx.d.clock.advance(36_000);
  assert.is((await ctx.d.daemon.services.reconciler.settle(cloid))?.status, "rejected");
  const retry = await send();
  assert.is(retry.status, 200, `a key whose order was never placed must not answer ${show([retry])}`);
  const sent = simOrders(ctx.d, mark);
  assert.equal(sent.map((o) => o.processed), [false, true], "the first never processed, the retry placed");
  assert.not.ok(sent[1]!.cloids.includes(cloid), "the retry is a new order, not the doubtful one re-sent");
  const open = (await ctx.d.http.get("/api/orders", { token: ctx.token })).body.data.orders;
  assert.ok(open.some((o: { orderId: number }) => o.orderId === retry.body.data.orderId));
});

t.run();
