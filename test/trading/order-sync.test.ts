// Order rows follow the exchange within one order-sync pass, whoever closed the order there: a fill
// at a price move, a cancel signed by the owner's own key, a reduce-only stop the venue cancels.
// /metrics counts as resting only what is open at the exchange. An exchange that fails only delays
// the row. Prices move through the sim's loopback control (POST /sim/price), as any client's would.
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { sql } from "kysely";
import type { Wallet } from "ethers";
import { createHyperliquidAdapter } from "../../daemon/exchange/hyperliquid-adapter.js";
import { simMark, startTestDaemon, trader, type TestDaemon } from "../helpers/daemon.js";
import { simFaults } from "../helpers/sim-faults.js";
import { rows } from "../helpers/stores.js";
import { waitUntil } from "../helpers/util.js";
import { scrape, val } from "../ops/_prom.js";

const t = suite<{ d: TestDaemon; token: string; wallet: Wallet }>("order sync");
t.before(async (ctx) => {
  // A pass every second (the oracle interval), and no oracle reading the exchange beside it.
  ctx.d = await startTestDaemon({ config: { metricsPort: 0, oracleInterval: 1 }, startOracle: false });
  const u = await trader(ctx.d);
  ctx.token = u.token;
  ctx.wallet = u.wallet as Wallet;
});
t.after.each(async (ctx) => {
  await simFaults(ctx.d.daemon.sim!.url).clear();
});
t.after(async (ctx) => {
  await ctx.d.close();
});

const row = async (d: TestDaemon, oid: number) => (await rows(d.daemon.store, sql<any>`select * from orders where oid = ${oid}`))[0];
const metricsResting = async (d: TestDaemon) => val((await scrape(d.daemon.metricsUrl!)).samples, 'tradevault_orders{status="resting"}');

/** The row once it has left `resting` (waiting for the order sync's pass, never for a fixed time). */
const settled = (d: TestDaemon, oid: number) =>
  waitUntil(async () => {
    const r = await row(d, oid);
    return r.status !== "resting" && r;
  }, { what: `order ${oid}'s row to leave resting` });

async function simPrice(d: TestDaemon, symbol: string, price: string) {
  const res = await fetch(`${d.daemon.sim!.url}/sim/price`, {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ symbol, price }),
  });
  assert.is(res.status, 200, await res.text());
}

async function place(d: TestDaemon, token: string, body: Record<string, unknown>): Promise<number> {
  const r = await d.http.post("/api/trade", body, { token });
  assert.is(r.status, 200, JSON.stringify(r.body));
  return r.body.data.orderId;
}

t("a resting buy that fills when the mark falls through it: the row says filled, with its size, and /metrics stops counting it resting", async ({ d, token }) => {
  const oid = await place(d, token, { symbol: "BTC", side: "buy", size: 0.01, price: 50000 });
  assert.is((await row(d, oid)).status, "resting");
  const before = await metricsResting(d);
  await simPrice(d, "BTC", "49000");
  const r = await settled(d, oid);
  assert.is(r.status, "filled");
  assert.is(r.filled_size, "0.01");
  assert.is(await metricsResting(d), before - 1);
  await simPrice(d, "BTC", "60000");
});

t("an order its owner cancels at the exchange with their own key, behind the daemon's back, becomes canceled", async ({ d, token, wallet }) => {
  const oid = await place(d, token, { symbol: "BTC", side: "buy", size: 0.01, price: 45000 });
  const own = createHyperliquidAdapter({ kind: "sim", url: d.daemon.sim!.url, isTestnet: true });
  await own.cancelOrder(wallet, { asset: 0, oid });
  const r = await settled(d, oid);
  assert.is(r.status, "canceled");
  assert.is(r.filled_size, null, "nothing of it had filled");
});

t("a reduce-only stop that fires once its position is gone is canceled by the exchange, and the row says so", async ({ d, token }) => {
  await place(d, token, { symbol: "ETH", side: "buy", size: 0.1 });
  const stop = await place(d, token, { symbol: "ETH", side: "sell", size: 0.1, trigger: { price: 2900, kind: "sl" } });
  const closed = await d.http.post("/api/positions/close", { symbol: "ETH" }, { token });
  assert.is(closed.status, 200, JSON.stringify(closed.body));
  await simPrice(d, "ETH", "2800");
  assert.is((await settled(d, stop)).status, "canceled");
  await simPrice(d, "ETH", "3000");
});

t("while the exchange fails every read the row stays as it was; once it answers, the row settles", async ({ d, token }) => {
  const oid = await place(d, token, { symbol: "SOL", side: "buy", size: 1, price: 140 });
  const before = await row(d, oid);
  const resting = await metricsResting(d);
  const faults = simFaults(d.daemon.sim!.url);
  const mark = simMark(d);
  await faults.add({ kind: "http500", endpoint: "info", count: 100_000 });
  await simPrice(d, "SOL", "139");
  // Two passes asked for the order and were refused (so the first has finished), unless a row changed.
  const refused = () => d.daemon.sim!.requests.filter((q) => q.id > mark && q.fault === "http500" && (q.body as any)?.type === "orderStatus" && (q.body as any)?.oid === oid).length;
  await waitUntil(async () => refused() >= 2 || (await row(d, oid)).status !== "resting", { what: "two passes refused by the exchange" });
  assert.equal(await row(d, oid), before, "not a field changed");
  assert.is(await metricsResting(d), resting);
  await faults.clear();
  const r = await settled(d, oid);
  assert.is(r.status, "filled");
  assert.is(r.filled_size, "1");
  await simPrice(d, "SOL", "150");
});

t("an account with more orders than lookups are worth is read as one list, and only the order gone from it is asked for", async ({ d }) => {
  const { token, wallet } = await trader(d);
  const far: number[] = [];
  for (let i = 0; i < 11; i += 1) far.push(await place(d, token, { symbol: "BTC", side: "buy", size: 0.001, price: 30000 }));
  const near = await place(d, token, { symbol: "BTC", side: "buy", size: 0.001, price: 51000 });
  const asked = (after: number) => d.daemon.sim!.requests.filter((q) => q.id > after && (q.body as any)?.user?.toLowerCase() === wallet.address.toLowerCase());
  // A pass that began while fewer orders rested asked for each; once one reads the list, none does again.
  const placed = simMark(d);
  await waitUntil(() => asked(placed).some((q) => (q.body as any).type === "frontendOpenOrders"), { what: "a pass reading the account's open orders" });
  const mark = simMark(d);
  await simPrice(d, "BTC", "50000");
  assert.is((await settled(d, near)).status, "filled");
  const lookups = asked(mark).filter((q) => (q.body as any).type === "orderStatus").map((q) => (q.body as any).oid);
  assert.ok(lookups.length > 0 && lookups.every((oid) => oid === near), `only the filled order was asked for: ${lookups}`);
  for (const oid of far) assert.is((await row(d, oid)).status, "resting");
  await simPrice(d, "BTC", "60000");
});

t.run();
