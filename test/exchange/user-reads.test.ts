// The reads users' requests cause, over the real adapter to a real sim, whose weight counter says what
// reached the exchange: an answer stands for its window at no weight, the adapter itself (what the
// order path, enforcement and the oracle read) always reads, an action's account is read afresh,
// the same read in flight is shared, a list's items are charged as the venue weighs them, and past
// the budget a kept answer is served, or RATE_LIMITED. Last, with Hyperliquid's own limiter: users
// hammering never take the weight the oracle and orders are left.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { Wallet, hexlify, randomBytes } from "ethers";
import { createHyperliquidAdapter } from "../../daemon/exchange/hyperliquid-adapter.js";
import { readBudget } from "../../daemon/exchange/read-budget.js";
import type { ExchangeAdapter } from "../../daemon/exchange/types.js";
import { createUserReads, KEPT_MS } from "../../daemon/exchange/user-reads.js";
import { HYPERLIQUID_WEIGHT, weightLimiter } from "../../daemon/exchange/weight-limiter.js";
import { isAppError } from "../../daemon/errors.js";
import { fundedWallet, startSim, statusesOf, type SimHarness } from "../sim/_support.js";

let h: SimHarness;
let exchange: ExchangeAdapter;
test.before(async () => {
  h = await startSim();
  exchange = createHyperliquidAdapter({ kind: "sim", url: h.sim.url, isTestnet: true });
});
test.after(async () => {
  await h.close();
});

const caller = () => new Wallet(hexlify(randomBytes(32))).address;

function rig(o: { perUser?: number; allUsers?: number; ttlMs?: number } = {}) {
  let now = 1_000_000;
  const clock = () => now;
  const budget = readBudget({ perUser: o.perUser ?? 120, allUsers: o.allUsers ?? 300, clock });
  const reads = createUserReads({ exchange, budget, ttlMs: o.ttlMs ?? 5_000, clock });
  return { reads, budget, advance: (ms: number) => void (now += ms) };
}

/** What the sim counted for `account`, by request type. */
const counted = (account: string) => h.sim.weight(account).byType;

test("a second read within the window costs no weight and answers the same; after it the exchange is read again", async () => {
  const { reads, budget, advance } = rig();
  const owner = await fundedWallet(h.sim, 1_000);
  const me = reads.as(owner.address);
  const first = await me.accountState(owner.address);
  advance(4_999);
  assert.equal(await me.accountState(owner.address), first);
  assert.equal(counted(owner.address), { clearinghouseState: 2 });
  assert.is(budget.spent(owner.address), 2);
  advance(1);
  await me.accountState(owner.address);
  assert.equal(counted(owner.address), { clearinghouseState: 4 });
});

test("the account is kept, whoever asks: another user's read of it in the window costs neither of them", async () => {
  const { reads, budget } = rig();
  const owner = await fundedWallet(h.sim, 1_000);
  const [investor, trader] = [caller(), caller()];
  await reads.as(investor).openOrders(owner.address);
  await reads.as(trader).openOrders(owner.address);
  assert.equal(counted(owner.address), { frontendOpenOrders: 20 });
  assert.equal([budget.spent(investor), budget.spent(trader)], [20, 0]);
});

test("a read that must be fresh goes to the adapter and sees what the kept answer does not", async () => {
  const { reads } = rig();
  const owner = await fundedWallet(h.sim, 1_000);
  const kept = await reads.as(owner.address).accountState(owner.address);
  await h.sim.faucet(owner.address, 500);
  assert.is((await reads.as(owner.address).accountState(owner.address)).accountValue, kept.accountValue);
  const fresh = await exchange.accountState(owner.address, { priority: "trading" }); // the pre-trade read's way
  assert.is(fresh.accountValue, "1500");
  assert.equal(counted(owner.address), { clearinghouseState: 4 });
});

test("an action's account is forgotten: the next read reads, the other accounts stay kept", async () => {
  const { reads } = rig();
  const [one, two] = [await fundedWallet(h.sim, 1_000), await fundedWallet(h.sim, 1_000)];
  const me = reads.as(one.address);
  await me.openOrders(one.address);
  await me.openOrders(two.address);
  reads.forget(one.address.toLowerCase());
  await me.openOrders(one.address);
  await me.openOrders(two.address);
  assert.equal([counted(one.address), counted(two.address)], [{ frontendOpenOrders: 40 }, { frontendOpenOrders: 20 }]);
});

test("the same read in flight answers every request that asks meanwhile, at one read's weight", async () => {
  const { reads, budget } = rig({ ttlMs: 0 }); // nothing kept: only the read in flight is shared
  const owner = await fundedWallet(h.sim, 1_000);
  const askers = Array.from({ length: 8 }, caller);
  const answers = await Promise.all(askers.map((a) => reads.as(a).accountState(owner.address)));
  assert.ok(answers.every((s) => s.accountValue === "1000"));
  assert.equal(counted(owner.address), { clearinghouseState: 2 });
  assert.is(askers.map((a) => budget.spent(a)).reduce((x, y) => x + y), 2);
});

test("a list is charged as the venue weighs it: 1 more per 20 items answered", async () => {
  const { reads, budget } = rig();
  const owner = await fundedWallet(h.sim, 10_000);
  const buys = { orders: Array.from({ length: 41 }, () => ({ a: 1, b: true, p: "3100", s: "0.004", r: false, t: { limit: { tif: "Ioc" as const } } })), grouping: "na" as const };
  assert.ok((await statusesOf(h.exchange(owner).order(buys))).every((s: any) => s.filled));
  const fills = await reads.as(owner.address).fills(owner.address, 0);
  assert.is(fills.length, 41);
  assert.is(counted(owner.address).userFillsByTime, 22);
  assert.is(budget.spent(owner.address), 22, "the budget counts what the sim counted");
});

test("past the budget: an answer kept from the last minute is served as it is; without one, 429 with when to retry", async () => {
  const { reads, advance } = rig({ perUser: 22, ttlMs: 1_000 });
  const owner = await fundedWallet(h.sim, 1_000);
  const me = reads.as(owner.address);
  const state = await me.accountState(owner.address); // 2
  await me.openOrders(owner.address); // 20: the minute's 22 spent
  advance(5_000);
  assert.equal(await me.accountState(owner.address), state, "expired, past the budget: the kept answer");
  const refused = await me.approvedAgents(owner.address).catch((e: unknown) => e);
  assert.ok(isAppError(refused) && refused.code === "RATE_LIMITED", String(refused));
  assert.is(refused.status, 429);
  assert.is(refused.retryAfter, 55);
  assert.equal(counted(owner.address), { clearinghouseState: 2, frontendOpenOrders: 20 });
  advance(KEPT_MS - 5_000 - 1); // still within the window: the budget has no room, the kept answer is a minute old
  await me.openOrders(owner.address);
  advance(1);
  await me.accountState(owner.address); // the window has room again: read afresh
  assert.equal(counted(owner.address), { clearinghouseState: 4, frontendOpenOrders: 20 });
});

test("with Hyperliquid's limiter, users hammering reads never take the weight left for the oracle and orders", async () => {
  let now = 1_000_000;
  const clock = () => now;
  const limiter = weightLimiter({ ...HYPERLIQUID_WEIGHT, clock });
  const venue = createHyperliquidAdapter({ kind: "hyperliquid-testnet", url: h.sim.url, isTestnet: true, limiter, clock });
  const allUsers = 300;
  const budget = readBudget({ perUser: 120, allUsers, clock });
  const reads = createUserReads({ exchange: venue, budget, ttlMs: 500, clock });
  const accounts = await Promise.all([1, 2, 3, 4, 5].map(() => fundedWallet(h.sim, 1_000)));
  const callers = accounts.map(() => caller());
  const before = accounts.reduce((sum, a) => sum + h.sim.weight(a.address).weight, 0);
  let least = limiter.available();
  let [answered, refused] = [0, 0];
  for (let i = 0; i < 600; i++) { // 60 s of the fake clock, a request every 100 ms
    const k = i % accounts.length;
    const read = i % 2 === 0 ? reads.as(callers[k]!).openOrders(accounts[k]!.address) : reads.as(callers[k]!).accountState(accounts[(k + 1) % 5]!.address);
    await read.then(() => answered++, (e: unknown) => {
      assert.ok(isAppError(e) && e.code === "RATE_LIMITED", String(e));
      refused++;
    });
    least = Math.min(least, limiter.available());
    now += 100;
  }
  const spent = accounts.reduce((sum, a) => sum + h.sim.weight(a.address).weight, 0) - before;
  assert.is(answered + refused, 600, "each answered (read, or kept) or refused with RATE_LIMITED");
  // They asked for about 110 a second: the ceiling, not their appetite, decided what reached the venue.
  assert.ok(spent >= allUsers - 22 && spent <= 2 * allUsers, `the venue counted ${spent} for 60 s of users' reads: about one window's ${allUsers}`);
  assert.ok(least >= HYPERLIQUID_WEIGHT.perMinute - allUsers, `the limiter kept ${least}: the oracle's and the orders' share was always there`);
});

test.run();
