// Stops that hold (docs/design.md "Stops that hold"): a market stop that fires into a gap past its
// price bound does not fill at the venue; the daemon closes the position at market instead and says
// so (StopFailed, then StopFilled with the price), on an own account as the owner's notices and on a
// vault as its events, through exchange faults and a restart. A trigger on the wrong side of the
// mark, or far from it, is refused; a position closed takes its remaining triggers with it.
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { fakeClock, startTestDaemon, trader, type TestDaemon } from "../helpers/daemon.js";
import { tempDir, waitUntil } from "../helpers/util.js";
import { vaultCase } from "../helpers/vaults.js";

const t = suite<{ d: TestDaemon }>("stops that hold");
t.before(async (ctx) => {
  // Real time: the keeper's backoff and the settling of a close in doubt wait on the clock.
  ctx.d = await startTestDaemon({ startOracle: false, clock: fakeClock(Date.now(), { realTime: true }) });
});
t.after(async (ctx) => {
  await ctx.d.close();
});

type Positions = Array<{ symbol: string; size: number }>;
const positionOf = async (d: TestDaemon, token: string, symbol: string, vault?: string) =>
  ((await d.http.get(`/api/positions${vault ? `?vaultAddress=${vault}` : ""}`, { token })).body.data.positions as Positions).find((p) => p.symbol === symbol);
const openOrders = async (d: TestDaemon, token: string, vault?: string) =>
  (await d.http.get(`/api/orders${vault ? `?vaultAddress=${vault}` : ""}`, { token })).body.data.orders as Array<{ orderId: number; trigger?: { kind: string } }>;
/** The owner's notices through GET /api/notices, oldest first. */
const noticesOf = async (d: TestDaemon, token: string) =>
  ((await d.http.get("/api/notices", { token })).body.data.notices as Array<{ type: string; data: Record<string, any> }>).reverse();
const stopOf = (d: TestDaemon, account: string) =>
  d.daemon.store.db.selectFrom("stops").selectAll().where("account", "=", account).orderBy("created_at").execute();

/** A long of 2 SOL at 150 with a market stop-loss at 140 (its order price: 5% below, 133). */
async function longWithStop(d: TestDaemon, token: string, vault?: string) {
  d.daemon.sim!.setPrice("SOL", "150");
  const entry = await d.http.post("/api/trade", { symbol: "SOL", side: "buy", size: 2, ...(vault ? { vaultAddress: vault } : {}) }, { token });
  assert.is(entry.status, 200, JSON.stringify(entry.body));
  const stop = await d.http.post("/api/trade", { symbol: "SOL", side: "sell", size: 2, trigger: { price: 140, kind: "sl" }, ...(vault ? { vaultAddress: vault } : {}) }, { token });
  assert.is(stop.status, 200, JSON.stringify(stop.body));
  return stop.body.data.orderId as number;
}

t("a gap past a market stop's bound: the daemon closes the long at market, StopFailed then StopFilled", async ({ d }) => {
  const { wallet, token } = await trader(d);
  const stopId = await longWithStop(d, token);
  // 150 straight to 126: the stop fires at 126 but its order accepts no less than 133.
  d.daemon.sim!.setPrice("SOL", "126");
  await waitUntil(async () => (await positionOf(d, token, "SOL")) === undefined, { slowMs: 30_000, what: "the position closed despite the gap" });
  await waitUntil(async () => (await noticesOf(d, token)).some((x) => x.type === "StopFilled"), { what: "StopFilled recorded" });
  const notices = await noticesOf(d, token);
  assert.equal(notices.map((n) => n.type), ["StopFailed", "StopFilled"]);
  const [failed, filled] = notices;
  assert.equal({ ...failed!.data, reason: undefined }, {
    symbol: "SOL", kind: "sl", triggerPrice: "140", size: "2", orderId: stopId, reason: undefined, account: wallet.address,
  });
  assert.match(failed!.data.reason, /no fill within its price bound/);
  assert.is(filled!.data.size, "2");
  assert.ok(Number(filled!.data.price) < 133 && Number(filled!.data.price) > 119, `filled near the mark: ${filled!.data.price}`);
  assert.is(filled!.data.attempts, 1);
  assert.equal((await stopOf(d, wallet.address)).map((s) => [s.state, s.outcome]), [["done", "closed"]]);
});

t("a stop that fills as it should records nothing, and the sibling take-profit goes once flat", async ({ d }) => {
  const { wallet, token } = await trader(d);
  await longWithStop(d, token);
  const tp = await d.http.post("/api/trade", { symbol: "SOL", side: "sell", size: 2, trigger: { price: 170, kind: "tp" } }, { token });
  assert.is(tp.status, 200, JSON.stringify(tp.body));
  d.daemon.sim!.setPrice("SOL", "139");
  await waitUntil(async () => (await positionOf(d, token, "SOL")) === undefined, { what: "the stop filled" });
  await waitUntil(async () => (await openOrders(d, token)).length === 0, { what: "the take-profit canceled once the long was flat" });
  // The exchange shows the cancel before the daemon has written it down.
  await waitUntil(async () => (await stopOf(d, wallet.address)).every((s) => s.state === "done"), { what: "both stops recorded as ended" });
  assert.equal(await noticesOf(d, token), []);
  assert.equal((await stopOf(d, wallet.address)).map((s) => [s.kind, s.outcome]), [["sl", "filled"], ["tp", "canceled"]]);
});

t("a position closed through the API takes its stop and take-profit with it", async ({ d }) => {
  const { token } = await trader(d);
  await longWithStop(d, token);
  assert.is((await d.http.post("/api/trade", { symbol: "SOL", side: "sell", size: 2, trigger: { price: 170, kind: "tp" } }, { token })).status, 200);
  assert.is((await openOrders(d, token)).length, 2);
  assert.is((await d.http.post("/api/positions/close", { symbol: "SOL" }, { token })).status, 200);
  await waitUntil(async () => (await openOrders(d, token)).length === 0, { what: "both triggers canceled after the close" });
});

t("an entry's stop-loss that gaps: the daemon closes the position and cancels the entry's take-profit", async ({ d }) => {
  const { token } = await trader(d);
  d.daemon.sim!.setPrice("ETH", "3000");
  const entry = await d.http.post("/api/trade", { symbol: "ETH", side: "buy", size: 1, price: 2990, stopLoss: { price: 2800 }, takeProfit: { price: 3300 } }, { token });
  assert.is(entry.status, 200, JSON.stringify(entry.body));
  d.daemon.sim!.setPrice("ETH", "2985");
  await waitUntil(async () => (await openOrders(d, token)).length === 2, { what: "the entry filled: its two children armed" });
  // Straight through the stop and past its bound (2660): no keeper pass has seen the position yet.
  d.daemon.sim!.setPrice("ETH", "2600");
  await waitUntil(async () => (await positionOf(d, token, "ETH")) === undefined, { slowMs: 30_000, what: "the daemon closed the long" });
  await waitUntil(async () => (await openOrders(d, token)).length === 0, { what: "the take-profit canceled with the position flat" });
  assert.equal((await noticesOf(d, token)).map((n) => n.type), ["StopFailed", "StopFilled"]);
});

t("the fallback close retries through exchange faults, and the notice counts the attempts", async ({ d }) => {
  const { token } = await trader(d);
  await longWithStop(d, token);
  d.daemon.sim!.faults.next({ kind: "http500", count: 2, actions: ["order"] });
  d.daemon.sim!.setPrice("SOL", "126");
  await waitUntil(async () => (await positionOf(d, token, "SOL")) === undefined, { slowMs: 60_000, what: "closed after the faults" });
  await waitUntil(async () => (await noticesOf(d, token)).some((n) => n.type === "StopFilled"), { what: "StopFilled" });
  const filled = (await noticesOf(d, token)).find((n) => n.type === "StopFilled")!;
  assert.is(filled.data.attempts, 3);
  assert.equal((await noticesOf(d, token)).map((n) => n.type), ["StopFailed", "StopFilled"]);
});

t("a vault's stop that gaps is closed by the daemon under its events", async ({ d }) => {
  const c = await vaultCase(d, { dailyDrawdown: 50, maxDrawdown: 50 });
  await longWithStop(d, c.tom.token, c.vault);
  d.daemon.sim!.setPrice("SOL", "126");
  await waitUntil(async () => (await positionOf(d, c.tom.token, "SOL", c.vault)) === undefined, { slowMs: 30_000, what: "the vault's long closed" });
  const eventsOf = async () => (await d.http.get(`/api/vaults/${c.vault}/events?limit=100`, { token: c.ivy.token })).body.data.events as Array<{ type: string; data: any }>;
  await waitUntil(async () => (await eventsOf()).some((e) => e.type === "StopFilled"), { what: "the vault's StopFilled event" });
  const events = await eventsOf();
  const mine = events.filter((e) => e.type === "StopFailed" || e.type === "StopFilled").reverse();
  assert.equal(mine.map((e) => e.type), ["StopFailed", "StopFilled"]);
  assert.is(mine[1]!.data.symbol, "SOL");
});

t("wrong-side and far-off trigger prices are refused with 400 naming trigger.price; nothing is stored", async ({ d }) => {
  const { wallet, token } = await trader(d);
  d.daemon.sim!.setPrice("SOL", "150");
  assert.is((await d.http.post("/api/trade", { symbol: "SOL", side: "buy", size: 2 }, { token })).status, 200);
  const refused = async (trigger: string, why: RegExp) => {
    const body = `{"symbol":"SOL","side":"sell","size":2,"trigger":${trigger}}`;
    const r = await d.http.request("POST", "/api/trade", undefined, { token, raw: body, headers: { "Content-Type": "application/json" } });
    assert.is(r.status, 400, `${trigger}: ${JSON.stringify(r.body)}`);
    const err = r.body.error;
    assert.is(err.code, "INVALID_INPUT");
    assert.equal(err.details.map((x: { field: string }) => x.field), ["body.trigger.price"], trigger);
    assert.match(err.message, why, trigger);
  };
  await refused(`{"price":155,"kind":"sl"}`, /must be below the mark 150/);
  await refused(`{"price":145,"kind":"tp"}`, /must be above the mark 150/);
  await refused(`{"price":1e21,"kind":"tp"}`, /within a fifth and five times the mark|must be below 1000000000000000/);
  await refused(`{"price":1e400,"kind":"tp"}`, /within a fifth and five times the mark|out of range|must be below/);
  await refused(`{"price":${"9".repeat(400)},"kind":"tp"}`, /within a fifth and five times the mark|out of range|must be below/);
  await refused(`{"price":20,"kind":"sl"}`, /within a fifth and five times the mark/);
  assert.equal(await openOrders(d, token), []);
  assert.equal(await stopOf(d, wallet.address), []);
});

t.run();

// A restart between the StopFailed and the close: the new daemon finishes the close.
const r = suite("stops that hold across a restart");
r("a fired stop whose close kept failing is closed by the daemon started after", async () => {
  const dir = tempDir();
  let d = await startTestDaemon({ dataDir: dir.path, startOracle: false, clock: fakeClock(Date.now(), { realTime: true }) });
  try {
    const { token } = await trader(d);
    await longWithStop(d, token);
    d.daemon.sim!.faults.next({ kind: "http500", count: 100_000, actions: ["order"] });
    d.daemon.sim!.setPrice("SOL", "126");
    await waitUntil(async () => (await noticesOf(d, token)).some((n) => n.type === "StopFailed"), { slowMs: 30_000, what: "StopFailed" });
    await d.close();
    d = await startTestDaemon({ dataDir: dir.path, startOracle: false, clock: fakeClock(Date.now(), { realTime: true }) });
    d.daemon.sim!.faults.clear();
    await waitUntil(async () => (await positionOf(d, token, "SOL")) === undefined, { slowMs: 60_000, what: "closed by the restarted daemon" });
    await waitUntil(async () => (await noticesOf(d, token)).some((x) => x.type === "StopFilled"), { what: "StopFilled after the restart" });
    assert.equal((await noticesOf(d, token)).map((x) => x.type), ["StopFailed", "StopFilled"]);
  } finally {
    await d.close();
    dir.remove();
  }
});
r.run();
