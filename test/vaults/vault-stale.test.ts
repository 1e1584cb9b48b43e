// --stale-after: a vault trade needs a balance reading no older than the limit (BALANCE_STALE, 503
// with Retry-After otherwise). The daemon's clock is frozen here, so the age of the last reading is
// exactly what the test makes it, to the millisecond.
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { fakeClock, type TestDaemon } from "../helpers/daemon.js";
import { startVaultDaemon, vaultCase, vaultDetail, vaultTrade, type VaultCase } from "../helpers/vaults.js";

const STALE_AFTER_S = 5;
const t = suite<{ d: TestDaemon; first: VaultCase; second: VaultCase }>("vault stale balance");
t.before(async (ctx) => {
  ctx.d = await startVaultDaemon({ staleAfter: STALE_AFTER_S, oracleInterval: 1 }, fakeClock());
  // One vault per test, both made before either test moves the clock: a vault created after that
  // would see its investor's faucet deposit (stamped by the sim with the moved clock) as a transfer
  // after its creation (stamped by the chain's own clock), and read a balance of 0.
  ctx.first = await vaultCase(ctx.d);
  ctx.second = await vaultCase(ctx.d);
});
t.after.each((ctx) => {
  ctx.d.daemon.sim!.faults.clear();
});
t.after(async (ctx) => {
  await ctx.d.close();
});

/** A resting buy far below the market: it places an order and fills nothing, so no reading is written. */
const restingBuy = (c: VaultCase) => vaultTrade(c, c.tom, { size: 0.01, price: 40000 });

/** Moves the frozen clock to `ms` (tests only move it forward). */
function setClock(d: TestDaemon, ms: number) {
  assert.ok(ms >= d.clock(), `the clock only moves forward (${ms} < ${d.clock()})`);
  d.clock.advance(ms - d.clock());
}

t("a balance older than --stale-after makes vault trades fail with 503 BALANCE_STALE until the oracle reads again", async ({ d, first: c }) => {
  // A cycle first, while the exchange answers: it waits for any write of these vaults still in flight
  // (on PostgreSQL the lease round's takeover writes a new vault), so none lands during the next
  // one, which would take its reading for this interval's and not read the vault again.
  await d.daemon.oracle.cycle();
  d.daemon.sim!.faults.next({ kind: "http500", endpoint: "info", count: 100 });
  d.clock.advance(10_000);
  // cannot read the exchange: nothing new is written, and a cycle that read no vault is a failure
  const failed = await d.daemon.oracle.cycle().then(() => "", (e: Error) => e.message);
  assert.match(failed, /no active vault could be read/);
  const r = await restingBuy(c);
  assert.is(r.status, 503, JSON.stringify(r.body));
  assert.is(r.body.error.code, "BALANCE_STALE");
  assert.ok(Number(r.headers.get("retry-after")) >= 1);
  d.daemon.sim!.faults.clear();
  await d.daemon.oracle.cycle();
  const after = await restingBuy(c);
  assert.is(after.status, 200, JSON.stringify(after.body));
});

t("the limit is inclusive: a reading exactly --stale-after old still trades; one millisecond older is BALANCE_STALE", async ({ d, second: c }) => {
  const observedS = (await vaultDetail(c)).lastBalanceUpdate as number;
  const limit = observedS * 1000 + STALE_AFTER_S * 1000;
  setClock(d, limit);
  const atLimit = await restingBuy(c);
  assert.is(atLimit.status, 200, JSON.stringify(atLimit.body));
  // the trade wrote no reading, so the next one is judged against the same observation
  assert.is((await vaultDetail(c)).lastBalanceUpdate, observedS);
  setClock(d, limit + 1);
  const past = await restingBuy(c);
  assert.is(past.status, 503, JSON.stringify(past.body));
  assert.is(past.body.error.code, "BALANCE_STALE");
  assert.ok(Number(past.headers.get("retry-after")) >= 1);
});

t.run();
