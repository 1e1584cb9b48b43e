// Stop-loss and take-profit orders under each breach policy (docs/design.md "Enforcement"): a
// protective trigger (reduce-only) stays armed under every policy until its position is closed.
// "pause" cancels the entries, an entry's waiting protection with it, and keeps the stop and target,
// which still fire; "reduce-only" keeps every reduce-only order and still takes a new stop; "flatten"
// closes the position and with it its triggers, leaving no order and no position.
import { suite } from "uvu";
import * as assert from "uvu/assert";
import type { TestDaemon } from "../helpers/daemon.js";
import { waitUntil } from "../helpers/util.js";
import { longBtc, setPrice, startVaultDaemon, vaultCase, vaultDetail, vaultTrade, type VaultCase } from "../helpers/vaults.js";

const t = suite<{ d: TestDaemon }>("trigger orders under the breach policies");
t.before(async (ctx) => {
  ctx.d = await startVaultDaemon({ staleAfter: 60 });
});
t.after(async (ctx) => {
  await ctx.d.close();
});

type Listed = { orderId: number; side: string; trigger?: { kind: string }; protection?: Array<{ kind: string }> };
const openOrders = async (c: VaultCase) =>
  (await c.d.http.get(`/api/orders?vaultAddress=${c.vault}`, { token: c.tom.token })).body.data.orders as Listed[];
const positions = async (c: VaultCase) =>
  (await c.d.http.get(`/api/positions?vaultAddress=${c.vault}`, { token: c.tom.token })).body.data.positions as Array<{ size: number }>;

/**
 * Long 0.1 BTC at 60 000 with a stop at 50 000 and a target at 70 000 (reduce-only triggers), and a
 * resting buy at 40 000 carrying its own stop at 35 000; then BTC to 53 000 (past the 5% daily limit,
 * short of the stop) and one cycle, and the policy carried out.
 */
async function protectedThenBreached(c: VaultCase) {
  await longBtc(c);
  for (const body of [
    { side: "sell", trigger: { price: 50000, kind: "sl" } },
    { side: "sell", trigger: { price: 70000, kind: "tp" } },
    { size: 0.01, price: 40000, stopLoss: { price: 35000 } },
  ]) {
    const r = await vaultTrade(c, c.tom, body);
    assert.is(r.status, 200, JSON.stringify(r.body));
  }
  const before = await openOrders(c);
  const kinds = before.map((o) => o.trigger?.kind ?? `entry with ${o.protection?.map((p) => p.kind).join()}`).sort();
  assert.equal(kinds, ["entry with sl", "sl", "tp"], JSON.stringify(before));
  setPrice(c.d, "BTC", "53000");
  await c.d.daemon.oracle.cycle();
  await waitUntil(async () => {
    const v = await vaultDetail(c);
    return v.paused && v.enforcement?.state === "holds";
  }, { slowMs: 30_000, what: "the vault paused and its policy held" });
}

t("a stop-loss on an active vault's long fires when the price crosses it and leaves the vault flat, unpaused", async ({ d }) => {
  const c = await vaultCase(d);
  await longBtc(c);
  const stop = await vaultTrade(c, c.tom, { side: "sell", trigger: { price: 58000, kind: "sl" } });
  assert.is(stop.status, 200, JSON.stringify(stop.body));
  setPrice(d, "BTC", "58500");
  assert.is((await positions(c))[0]?.size, 0.1, "above the stop: still long");
  // 60 000 -> 57 900 costs the 10 000 vault 210 (2.1%): inside its 5% daily limit.
  setPrice(d, "BTC", "57900");
  await waitUntil(async () => (await positions(c)).length === 0, { what: "the stop closed the vault's long" });
  assert.equal(await openOrders(c), []);
  await d.daemon.oracle.cycle();
  assert.is((await vaultDetail(c)).paused, false);
});

t("pause: the entry and its protection go; the stop and the target stay armed and the stop still fires", async ({ d }) => {
  const c = await vaultCase(d);
  await protectedThenBreached(c);
  const left = await openOrders(c);
  assert.equal(left.map((o) => [o.side, o.trigger?.kind]).sort(), [["sell", "sl"], ["sell", "tp"]], JSON.stringify(left));
  assert.is((await positions(c))[0]?.size, 0.1, "the position stays");
  setPrice(d, "BTC", "49000");
  await waitUntil(async () => (await positions(c)).length === 0, { what: "the paused vault's stop closed the long" });
  // Flat: the target has nothing left to protect and goes too.
  await waitUntil(async () => (await openOrders(c)).length === 0, { what: "the target canceled once the position was flat" });
});

t("reduce-only: the reduce-only stop and target stay, the entry and its protection go, and a new stop is taken", async ({ d }) => {
  const c = await vaultCase(d, { breachPolicy: "reduce-only" });
  await protectedThenBreached(c);
  const left = await openOrders(c);
  assert.equal(left.map((o) => [o.side, o.trigger?.kind]).sort(), [["sell", "sl"], ["sell", "tp"]], JSON.stringify(left));
  const tighter = await vaultTrade(c, c.tom, { side: "sell", size: 0.05, trigger: { price: 52000, kind: "sl" } });
  assert.is(tighter.status, 200, JSON.stringify(tighter.body));
  const entry = await vaultTrade(c, c.tom, { size: 0.01, price: 45000, stopLoss: { price: 44000 } });
  assert.is(entry.status, 409, JSON.stringify(entry.body));
  assert.is(entry.body.error.code, "VAULT_PAUSED");
  // The surviving stop still does its job: through 50 000 the whole position is gone.
  setPrice(d, "BTC", "49000");
  await waitUntil(async () => (await positions(c)).length === 0, { what: "the stops closed the long" });
});

t("flatten: no order and no position, triggers included", async ({ d }) => {
  const c = await vaultCase(d, { breachPolicy: "flatten" });
  await protectedThenBreached(c);
  assert.equal(await openOrders(c), []);
  assert.equal(await positions(c), []);
});

t.run();
