// A breach is enforced until it holds (docs/design.md "Enforcement"): with the exchange refusing
// every action around a breach, each policy's account is brought in line once it answers again, by
// the daemon's own retries; the state is visible in the vault detail and /healthz; the outcome event
// is recorded once; concurrent triggers send one cancel per order and one close per position. The
// faults go through the sim's own HTTP controls (POST /sim/faults), as any client would send them.
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { ExchangeClient, HttpTransport } from "@nktkas/hyperliquid";
import { Wallet } from "ethers";
import { AGENT_NAME } from "../../daemon/trading/agent-approval.js";
import { approveAgent, type TestDaemon } from "../helpers/daemon.js";
import { simFaults, type SimFaults } from "../helpers/sim-faults.js";
import { waitUntil } from "../helpers/util.js";
import { longBtc, setPrice, startVaultDaemon, vaultCase, vaultDetail, vaultTrade, type VaultCase } from "../helpers/vaults.js";

const INTERVAL_S = 2;
const t = suite<{ d: TestDaemon; faults: SimFaults }>("breach enforcement");
t.before(async (ctx) => {
  ctx.d = await startVaultDaemon({ staleAfter: 60, oracleInterval: INTERVAL_S });
  ctx.faults = simFaults(ctx.d.daemon.sim!.url);
});
t.after.each(async (ctx) => {
  await ctx.faults.clear();
});
t.after(async (ctx) => {
  await ctx.d.close();
});

const get = async (c: VaultCase, path: string) => {
  const r = await c.d.http.get(path, { token: c.tom.token });
  assert.is(r.status, 200, JSON.stringify(r.body));
  return r.body.data;
};
const openOrders = async (c: VaultCase) => (await get(c, `/api/orders?vaultAddress=${c.vault}`)).orders as Array<{ orderId: number; side: string }>;
const positions = async (c: VaultCase) => (await get(c, `/api/positions?vaultAddress=${c.vault}`)).positions as Array<{ symbol: string; size: number }>;
const events = async (c: VaultCase) =>
  (await get(c, `/api/vaults/${c.vault}/events?limit=1000`)).events as Array<{ type: string; data: Record<string, any> }>;
const ofType = async (c: VaultCase, type: string) => (await events(c)).filter((e) => e.type === type);

/** Long 0.1 BTC at 60 000 plus resting orders: a buy at 40 000 and 41 000, and what `extra` adds. */
async function exposed(c: VaultCase, extra: Record<string, unknown>[] = []) {
  await longBtc(c);
  for (const body of [{ size: 0.01, price: 40000 }, { size: 0.01, price: 41000 }, ...extra]) {
    const r = await vaultTrade(c, c.tom, body);
    assert.is(r.status, 200, JSON.stringify(r.body));
  }
}

/** BTC to 53 000 (the 5% daily limit breached) and one oracle cycle: the vault pauses on-chain. */
async function breachNow(c: VaultCase) {
  setPrice(c.d, "BTC", "53000");
  await c.d.daemon.oracle.cycle();
  assert.is((await vaultDetail(c)).paused, true);
}

/**
 * The exchange answers HTTP 500 to every action from before the breach until the vault has been out
 * of policy for more than two oracle intervals (`failing`); then it answers again, and no cycle is
 * run: only the daemon's own retries can bring the vault in line. Returns how long that took.
 */
async function outage(c: VaultCase, opts: { ordersRest?: boolean } = {}): Promise<number> {
  const faults = simFaults(c.d.daemon.sim!.url);
  await faults.add({ kind: "http500", endpoint: "exchange", count: 100_000 });
  await breachNow(c);
  const during = await waitUntil(async () => {
    const v = await vaultDetail(c);
    return v.enforcement?.state === "failing" && v;
  }, { slowMs: 30_000, what: "the vault to be failing its policy" }).catch(async (e) => { throw new Error(`${e.message}: ${JSON.stringify((await vaultDetail(c)).enforcement)}`); });
  assert.ok(during.enforcement.attempts >= 2, JSON.stringify(during.enforcement));
  assert.match(during.enforcement.lastError, /did not answer|HTTP 500|in doubt/);
  const health = (await c.d.http.get("/healthz")).body.data;
  assert.ok(health.enforcement.outOfPolicy >= 1, JSON.stringify(health.enforcement));
  assert.ok(health.enforcement.oldestSeconds >= INTERVAL_S * 2, JSON.stringify(health.enforcement));
  if (opts.ordersRest !== false) assert.ok((await openOrders(c)).length > 0, "the exchange refused: the orders are still there");

  await faults.clear();
  const back = Date.now();
  const held = await waitUntil(async () => {
    const v = await vaultDetail(c);
    return v.enforcement?.state === "holds" && v;
  }, { slowMs: 30_000, what: "the vault to hold its policy once the exchange answers" });
  assert.is(held.enforcement.lastError, null);
  return Date.now() - back;
}

async function assertOutcomeOnce(c: VaultCase, type: string) {
  // The vault's detail may show "holds" a moment before the commit that stores the outcome event
  // (on PostgreSQL a round trip or two): wait for the event, then require exactly one.
  await waitUntil(async () => (await ofType(c, type)).length > 0, { slowMs: 30_000, what: `the ${type} event` });
  const outcome = await ofType(c, type);
  assert.is(outcome.length, 1, `one ${type}: ${JSON.stringify(outcome)}`);
  assert.ok(outcome[0]!.data.attempts >= 2, JSON.stringify(outcome[0]));
  const failing = await ofType(c, "EnforcementFailing");
  assert.is(failing.length, 1, "EnforcementFailing once");
  assert.match(failing[0]!.data.error, /did not answer|HTTP 500|in doubt/);
  return outcome[0]!;
}

t("pause: after an outage around the breach, every resting order is canceled by the daemon's retries", async ({ d }) => {
  const c = await vaultCase(d);
  await exposed(c);
  const ms = await outage(c);
  assert.equal(await openOrders(c), []);
  assert.is((await positions(c))[0]?.size, 0.1, "the pause policy keeps the position");
  const e = await assertOutcomeOnce(c, "OrdersCanceled");
  assert.is(e.data.count, 2);
  console.log(`  pause held ${ms} ms after the exchange answered again`);
});

t("reduce-only: non-reduce-only orders canceled, the reduce-only one stays", async ({ d }) => {
  const c = await vaultCase(d, { breachPolicy: "reduce-only" });
  await exposed(c, [{ side: "sell", size: 0.05, price: 70000, reduceOnly: true }]);
  await outage(c);
  const left = await openOrders(c);
  assert.is(left.length, 1, JSON.stringify(left));
  assert.is(left[0]!.side, "sell");
  const e = await assertOutcomeOnce(c, "OrdersCanceled");
  assert.is(e.data.count, 2);
});

t("flatten: no order and no position once the exchange answers, closed once", async ({ d }) => {
  const c = await vaultCase(d, { breachPolicy: "flatten" });
  await exposed(c);
  await outage(c);
  assert.equal(await openOrders(c), []);
  assert.equal(await positions(c), []);
  const e = await assertOutcomeOnce(c, "Flattened");
  assert.is(e.data.canceledOrders, 2);
  assert.is(e.data.positions.length, 1, JSON.stringify(e.data));
  assert.is(e.data.positions[0].size, "0.1");
  assert.equal(e.data.dust, []);
  // While the exchange failed the cancels, no close was sent: it would only have been in doubt.
  const failedCloses = d.daemon.sim!.requests.filter((r) => r.path === "/exchange" && r.fault === "http500" && (r.body as any).action.type === "order");
  assert.is(failedCloses.length, 0, "no close sent into the outage");
});

t("flatten with no resting order: each close the outage failed is settled before the next, none signed twice", async ({ d }) => {
  const c = await vaultCase(d, { breachPolicy: "flatten" });
  await longBtc(c);
  const mark = d.daemon.sim!.requests.at(-1)?.id ?? 0;
  await outage(c, { ordersRest: false });
  assert.equal(await positions(c), []);
  // A close in doubt is settled (here: as never placed, once its short expiry has passed) before the
  // next is sent, so an outage of a few seconds sees one or two closes, not one per retry.
  const sent = d.daemon.sim!.requests.filter((r) => r.id > mark && r.path === "/exchange" && (r.body as any).action.type === "order");
  const failed = sent.filter((r) => r.fault === "http500");
  assert.ok(failed.length >= 1 && failed.length <= 2, `closes sent during the outage: ${failed.length}`);
  const cloids = sent.flatMap((r) => ((r.body as any).action.orders as Array<{ c?: string }>).map((o) => o.c));
  assert.is(new Set(cloids).size, cloids.length, "no order signed twice");
  const e = await assertOutcomeOnce(c, "Flattened");
  assert.is(e.data.positions.length, 1);
});

t("three concurrent triggers send one cancel per order and one close per position", async ({ d, faults }) => {
  const c = await vaultCase(d, { breachPolicy: "flatten" });
  await exposed(c);
  const oids = (await openOrders(c)).map((o) => o.orderId).sort();
  await faults.add({ kind: "http500", endpoint: "exchange", count: 100_000 });
  await breachNow(c);
  // Taken before the faults clear: a retry already waiting may go the moment they do.
  const mark = d.daemon.sim!.requests.at(-1)?.id ?? 0;
  await faults.clear();
  await Promise.all([d.daemon.enforcement.trigger(c.vault), d.daemon.enforcement.trigger(c.vault), d.daemon.enforcement.cycle()]);
  await waitUntil(async () => (await vaultDetail(c)).enforcement?.state === "holds", { slowMs: 30_000, what: "holds" });
  const actions = d.daemon.sim!.requests.filter((r) => r.id > mark && r.path === "/exchange" && r.fault === undefined).map((r) => (r.body as any).action);
  const cancels = actions.filter((a) => a.type === "cancel").flatMap((a) => a.cancels.map((x: { o: number }) => x.o)).sort();
  assert.equal(cancels, oids, "each resting order canceled once");
  const closes = actions.filter((a) => a.type === "order");
  assert.is(closes.length, 1, `one close for the one position: ${JSON.stringify(closes)}`);
  assert.equal(await positions(c), []);
});

t("a close whose answer was lost is settled by its cloid, never sent again: the position is closed once", async ({ d, faults }) => {
  const c = await vaultCase(d, { breachPolicy: "flatten" });
  await longBtc(c);
  const mark = d.daemon.sim!.requests.at(-1)?.id ?? 0;
  // The exchange places the close but the answer never arrives: its outcome is in doubt.
  await faults.add({ kind: "drop-after-processing", actions: ["order"], count: 1 });
  await breachNow(c);
  await waitUntil(async () => (await vaultDetail(c)).enforcement?.state === "holds", { slowMs: 30_000, what: "holds" });
  const orders = d.daemon.sim!.requests.filter((r) => r.id > mark && r.path === "/exchange" && (r.body as any).action.type === "order");
  assert.is(orders.length, 1, "one close order request: the lost answer was settled by cloid, not by a second close");
  assert.is(orders[0]!.fault, "drop-after-processing");
  assert.equal(await positions(c), []);
  const [flat] = await ofType(c, "Flattened");
  assert.is(flat!.data.positions.length, 1);
});

t("an outage with several paused vaults: one probes the exchange, the others wait, and all hold soon after it answers", async ({ d, faults }) => {
  const cases = [await vaultCase(d), await vaultCase(d), await vaultCase(d)];
  for (const c of cases) await exposed(c);
  await faults.add({ kind: "http500", endpoint: "exchange", count: 100_000 });
  setPrice(d, "BTC", "53000");
  await d.daemon.oracle.cycle();
  for (const c of cases) {
    await waitUntil(async () => (await vaultDetail(c)).enforcement?.state === "failing", { slowMs: 30_000, what: "failing" });
  }
  // From now on only the probing vault reads its orders before each try; the others wait for it.
  const mark = d.daemon.sim!.requests.at(-1)?.id ?? 0;
  await waitUntil(() => d.daemon.sim!.requests.filter((r) => r.id > mark && (r.body as any)?.type === "frontendOpenOrders").length >= 2, {
    slowMs: 30_000, what: "two probes",
  });
  const readers = new Set(d.daemon.sim!.requests.filter((r) => r.id > mark && (r.body as any)?.type === "frontendOpenOrders").map((r) => (r.body as any).user));
  assert.is(readers.size, 1, `accounts read during the outage: ${[...readers].join(", ")}`);

  await faults.clear();
  const back = Date.now();
  for (const c of cases) {
    await waitUntil(async () => (await vaultDetail(c)).enforcement?.state === "holds", { slowMs: 30_000, what: "all hold" });
    assert.equal(await openOrders(c), []);
  }
  console.log(`  three vaults held ${Date.now() - back} ms after the exchange answered again`);
});

t("the vault detail says when the exchange could not be read, instead of 'no positions'", async ({ d, faults }) => {
  const c = await vaultCase(d);
  await longBtc(c);
  assert.is((await vaultDetail(c)).positionsAvailable, true);
  await faults.add({ kind: "http500", endpoint: "info", count: 100_000 });
  const v = await vaultDetail(c);
  assert.equal(v.positions, [], "still an array (SPEC 2.11)");
  assert.is(v.positionsAvailable, false);
  await faults.clear();
  const back = await vaultDetail(c);
  assert.is(back.positionsAvailable, true);
  assert.is(back.positions.length, 1);
});

t("an agent key that lapsed: failing with what the investor must do; a new approval lets the vault hold", async ({ d }) => {
  const c = await vaultCase(d);
  await exposed(c);
  // The investor approves another agent under the daemon's agent name from her own wallet: the venue
  // replaces the daemon's agent, as an expiry, a prune or a revocation would end it.
  const venue = new ExchangeClient({ transport: new HttpTransport({ apiUrl: d.daemon.sim!.url, isTestnet: true }), wallet: c.ivy.wallet });
  await venue.approveAgent({ agentAddress: Wallet.createRandom().address as `0x${string}`, agentName: AGENT_NAME });
  await breachNow(c);
  const failing = await waitUntil(async () => {
    const v = await vaultDetail(c);
    return v.enforcement?.state === "failing" && v.enforcement;
  }, { slowMs: 30_000, what: "failing on the lapsed agent" });
  assert.match(failing.lastError, /agent.*investor must approve a new agent/);
  assert.ok((await openOrders(c)).length === 2, "nothing could be canceled");
  await approveAgent(d.http, c.ivy.token, c.ivy.wallet);
  await waitUntil(async () => (await vaultDetail(c)).enforcement?.state === "holds", { slowMs: 30_000, what: "holds with the new agent" });
  assert.equal(await openOrders(c), []);
});

t.run();
