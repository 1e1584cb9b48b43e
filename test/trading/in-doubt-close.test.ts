// A close whose order is in doubt (an exchange fault after the send) is never sent twice and never
// blocks silently: a vault's close settles the order by its cloid at once and goes on when the
// exchange knows it; while the exchange cannot know it yet (the send never arrived, and its signed
// expiry has not passed) the close answers 409 with Retry-After at the moment it can be settled, and
// a close then goes. In every case the position ends flat, by exactly one processed close order.
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { fakeClock, simMark, simOrders, trader, type TestDaemon } from "../helpers/daemon.js";
import { simFaults } from "../helpers/sim-faults.js";
import { longBtc, startVaultDaemon, vaultCase, vaultDetail, vaultPost } from "../helpers/vaults.js";

const t = suite<{ d: TestDaemon }>("in-doubt closes");
t.before(async (ctx) => {
  // No oracle: its cycles read the exchange too, and would take the faults these tests queue.
  ctx.d = await startVaultDaemon({ exchangeTimeout: 0.5 }, fakeClock(Date.now(), { realTime: true }));
});
t.after.each((ctx) => {
  ctx.d.daemon.sim!.faults.clear();
});
t.after(async (ctx) => {
  await ctx.d.close();
});

/** Close orders the sim processed (placed or rejected) since `mark`. */
const processedOrders = (d: TestDaemon, mark: number) => simOrders(d, mark).filter((o) => o.processed).length;

/**
 * The next order to `account` is processed but its answer is lost, and the daemon's lookups by cloid
 * right after fail too: the first send's outcome stays in doubt. The lookups' faults are queued when
 * the sim fills the order, so the reads before it are not faulted.
 */
async function loseTheAnswer(d: TestDaemon, account: string) {
  const sim = d.daemon.sim!;
  const off = sim.onEvent((e) => {
    if (e.kind !== "fills" || e.user.toLowerCase() !== account.toLowerCase()) return;
    off();
    sim.faults.next({ kind: "http500", endpoint: "info", count: 3 });
  });
  await simFaults(sim.url).add({ kind: "drop-after-processing", actions: ["order"] });
}

t("a vault's close whose order never arrived: 409 with Retry-After while it could still land, then the close goes", async ({ d }) => {
  const c = await vaultCase(d);
  await d.daemon.oracle.cycle();
  await longBtc(c);
  const mark = simMark(d);
  await simFaults(d.daemon.sim!.url).add({ kind: "http500", actions: ["order"] });
  const first = await vaultPost(c, "close", c.ivy);
  assert.is(first.status, 502, JSON.stringify(first.body));
  const cloid = first.body.error.details.cloid;

  const second = await vaultPost(c, "close", c.tom);
  assert.is(second.status, 409, JSON.stringify(second.body));
  assert.is(second.body.error.code, "CONFLICT");
  assert.match(second.body.error.message, `order ${cloid} of this vault is still in doubt`);
  const retryAfter = Number(second.headers.get("retry-after"));
  assert.ok(retryAfter >= 1 && retryAfter <= 10, `Retry-After ${second.headers.get("retry-after")}: the close order's 5 s expiry and the 5 s allowance`);
  assert.is((await vaultDetail(c)).positions.length, 1, "the position stays open while the doubt lasts");

  d.clock.advance(retryAfter * 1000);
  const third = await vaultPost(c, "close", c.ivy);
  assert.is(third.status, 200, `after Retry-After the doubt is settled and the close goes: ${JSON.stringify(third.body)}`);
  assert.is(third.body.data.vault.status, "CLOSED");
  assert.equal((await vaultDetail(c)).positions, []);
  assert.is(processedOrders(d, mark), 1, "one close order reached the exchange");
});

t("a vault's close whose answer was lost after the fill: the next close settles it by cloid at once and closes, flat once", async ({ d }) => {
  const c = await vaultCase(d);
  await d.daemon.oracle.cycle();
  await longBtc(c);
  const mark = simMark(d);
  await loseTheAnswer(d, c.ivy.address);
  const first = await vaultPost(c, "close", c.ivy);
  assert.is(first.status, 502, JSON.stringify(first.body));
  assert.ok(first.headers.get("retry-after"), "the in-doubt answer says when to ask again");
  assert.ok(first.body.error.details.cloid);

  const second = await vaultPost(c, "close", c.ivy);
  assert.is(second.status, 200, JSON.stringify(second.body));
  assert.is(second.body.data.vault.status, "CLOSED");
  assert.equal((await vaultDetail(c)).positions, []);
  assert.is(processedOrders(d, mark), 1, "the position was closed once: the second close sent no order");
});

t("POST /api/positions/close in doubt: a second close never closes twice", async ({ d }) => {
  const u = await trader(d);
  const position = async () => (await d.http.get("/api/positions", { token: u.token })).body.data.positions;
  const buy = await d.http.post("/api/trade", { symbol: "BTC", side: "buy", size: 0.01 }, { token: u.token });
  assert.is(buy.status, 200, JSON.stringify(buy.body));

  // The answer lost after the fill: the second close finds the position gone, and sends nothing.
  let mark = simMark(d);
  await loseTheAnswer(d, u.wallet.address);
  const first = await d.http.post("/api/positions/close", { symbol: "BTC" }, { token: u.token });
  assert.is(first.status, 502, JSON.stringify(first.body));
  assert.ok(first.headers.get("retry-after"));
  const second = await d.http.post("/api/positions/close", { symbol: "BTC" }, { token: u.token });
  assert.is(second.status, 409, JSON.stringify(second.body));
  assert.is(second.body.error.code, "NO_POSITION");
  assert.equal(await position(), []);
  assert.is(processedOrders(d, mark), 1);

  // The send never arrived: the second close goes at once (a reduce-only close cannot overshoot).
  assert.is((await d.http.post("/api/trade", { symbol: "BTC", side: "buy", size: 0.01 }, { token: u.token })).status, 200);
  mark = simMark(d);
  await simFaults(d.daemon.sim!.url).add({ kind: "http500", actions: ["order"] });
  assert.is((await d.http.post("/api/positions/close", { symbol: "BTC" }, { token: u.token })).status, 502);
  const again = await d.http.post("/api/positions/close", { symbol: "BTC" }, { token: u.token });
  assert.is(again.status, 200, JSON.stringify(again.body));
  assert.equal(await position(), []);
  assert.is(processedOrders(d, mark), 1);
});

t.run();
