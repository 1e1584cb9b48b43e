// Cancelling a vault's resting order is its trader's right in every state but CLOSED: a vault whose
// balance went stale (or that is paused, or past its deadline) must still let its trader take risk
// off the book. The investor gets 403, a stranger 404, and a closed vault 409.
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { type TestDaemon } from "../helpers/daemon.js";
import { startVaultDaemon, stranger, vaultCase, vaultPost, vaultTrade, type VaultCase } from "../helpers/vaults.js";

const t = suite<{ d: TestDaemon; c: VaultCase }>("vault cancel");
t.before(async (ctx) => {
  ctx.d = await startVaultDaemon({ staleAfter: 5, oracleInterval: 1 });
  ctx.c = await vaultCase(ctx.d);
});
t.after(async (ctx) => {
  await ctx.d.close();
});

const cancel = (c: VaultCase, token: string, orderId: number) =>
  c.d.http.del(`/api/orders/${orderId}?vaultAddress=${c.vault}`, { token });

t("a stale vault refuses new orders but its trader may still cancel the resting ones; others may not", async ({ d, c }) => {
  const placed = await vaultTrade(c, c.tom, { size: 0.01, price: 40000 });
  assert.is(placed.status, 200, JSON.stringify(placed.body));
  const orderId = placed.body.data.orderId;
  d.clock.advance(10_000); // past --stale-after: the balance is now too old to trade on
  const more = await vaultTrade(c, c.tom, { size: 0.01, price: 40000 });
  assert.is(more.body.error?.code, "BALANCE_STALE");

  assert.is((await cancel(c, c.ivy.token, orderId)).status, 403, "the investor does not manage orders");
  const eve = await stranger(d);
  assert.is((await cancel(c, eve.token, orderId)).status, 404, "a stranger does not see the vault");
  const r = await cancel(c, c.tom.token, orderId);
  assert.is(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.data, { orderId, status: "canceled" });
});

t("a closed vault has no orders to manage: 409 VAULT_CLOSED", async ({ d, c }) => {
  await d.daemon.oracle.cycle(); // a fresh balance, so the close can write its final reading
  const closed = await vaultPost(c, "close", c.ivy);
  assert.is(closed.status, 200, JSON.stringify(closed.body));
  const r = await cancel(c, c.tom.token, 123);
  assert.is(r.status, 409);
  assert.is(r.body.error.code, "VAULT_CLOSED");
});

t.run();
