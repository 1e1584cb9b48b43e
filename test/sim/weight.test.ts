// The sim weighs every request as Hyperliquid does and counts it per user: an /info request against
// the user it asks about (lists by what they returned), an /exchange action against its signer
// (1 + floor(batch/40)); readable through sim.weight() and GET /sim/weight (loopback).
import { test } from "uvu";
import * as assert from "uvu/assert";
import { Wallet, hexlify, randomBytes } from "ethers";
import { fundedWallet, postJson, startSim, statusesOf, type SimHarness } from "./_support.js";

let h: SimHarness;
test.before(async () => {
  h = await startSim();
});
test.after(async () => {
  await h.close();
});

const userOf = (w: Wallet) => w.address.toLowerCase() as `0x${string}`;
const weightOver = async (query: string) => {
  const res = await fetch(`${h.sim.url}/sim/weight${query}`);
  return { status: res.status, json: (await res.json()) as any };
};

/** `n` ETH IOC buys of 0.004 (12 USDC each) in one order action: each fills at once. */
const iocBuys = (n: number) => ({
  orders: Array.from({ length: n }, () => ({ a: 1, b: true, p: "3100", s: "0.004", r: false, t: { limit: { tif: "Ioc" as const } } })),
  grouping: "na" as const,
});

test("info requests weigh 2, 20 or 60 by type, against the user they ask about", async () => {
  const w = await fundedWallet(h.sim, 1_000);
  const user = userOf(w);
  await h.info.clearinghouseState({ user });
  await h.info.orderStatus({ user, oid: 1 });
  await h.info.frontendOpenOrders({ user });
  await h.info.extraAgents({ user });
  await h.info.userRole({ user });
  const before = h.sim.weight();
  await h.info.allMids(); // market data: the totals count it, no user does
  await h.info.meta();
  assert.equal(h.sim.weight(user), {
    user, weight: 2 + 2 + 20 + 20 + 60, requests: 5,
    byType: { clearinghouseState: 2, orderStatus: 2, frontendOpenOrders: 20, extraAgents: 20, userRole: 60 },
  });
  assert.equal(h.sim.weight(), { weight: before.weight + 22, requests: before.requests + 2 });
});

test("an action weighs 1 + floor(batch/40) against its signer; a list costs 1 more per 20 items returned", async () => {
  const w = await fundedWallet(h.sim, 10_000);
  const user = userOf(w);
  const one = await statusesOf(h.exchange(w).order(iocBuys(1)));
  assert.ok(one[0].filled, JSON.stringify(one));
  const forty = await statusesOf(h.exchange(w).order(iocBuys(40)));
  assert.ok(forty.every((s: any) => s.filled), JSON.stringify(forty));
  assert.equal(h.sim.weight(user).byType, { order: 1 + 2 });
  const fills = await h.info.userFillsByTime({ user, startTime: 0 });
  assert.is(fills.length, 41);
  const ledger = await h.info.userNonFundingLedgerUpdates({ user, startTime: 0 });
  assert.is(ledger.length, 1); // the faucet's deposit
  const after = h.sim.weight(user);
  assert.is(after.byType.userFillsByTime, 20 + 2, "41 fills: 2 extra");
  assert.is(after.byType.userNonFundingLedgerUpdates, 20, "1 item: no extra");
  assert.is(after.weight, 3 + 22 + 20);
  assert.is(after.requests, 4);
});

test("a refused action is weighed too, against the address its signature recovers to", async () => {
  const nobody = new Wallet(hexlify(randomBytes(32))); // no account: the sim refuses it after recovering it
  const res = await h.exchange(nobody).order(iocBuys(1)).catch((e: Error) => e);
  assert.match(String(res), /does not exist/);
  assert.equal(h.sim.weight(userOf(nobody)).byType, { order: 1 });
});

test("GET /sim/weight answers one user's counts, or the totals; anything else is refused", async () => {
  const w = await fundedWallet(h.sim, 1_000);
  await h.info.clearinghouseState({ user: userOf(w) });
  const one = await weightOver(`?user=${w.address}`);
  assert.equal([one.status, one.json], [200, { ok: true, user: userOf(w), weight: 2, requests: 1, byType: { clearinghouseState: 2 } }]);
  const nobody = await weightOver(`?user=0x${"ab".repeat(20)}`);
  assert.equal(nobody.json, { ok: true, user: `0x${"ab".repeat(20)}`, weight: 0, requests: 0, byType: {} });
  const totals = await weightOver("");
  assert.equal(totals.json, { ok: true, ...h.sim.weight() });
  assert.is((await weightOver("?user=bob")).status, 400);
  assert.is((await postJson(h.sim.url, "/sim/weight", {})).status, 405);
});

test.run();
