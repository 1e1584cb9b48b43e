// POST /sim/withdraw: USDC leaving a perp account as a bridge withdrawal takes it, at most the
// account's withdrawable, recorded in userNonFundingLedgerUpdates with the venue's withdraw delta; and
// the faucet's deposit and clearinghouseState timed by the same clock (the sim's, in ms).
import { Wallet } from "ethers";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { postJson, startSim, type SimHarness } from "./_support.js";

let h: SimHarness;
let now = 1_800_000_000_123; // ms; not the wall clock, so a time in seconds or from Date.now() shows
const minted: bigint[] = [];

test.before(async () => {
  h = await startSim({ clock: () => now, onFaucet: async (_user, amount) => void minted.push(amount) });
});
test.after(async () => {
  await h.close();
});

const usdcPattern = /^[0-9]+(\.[0-9]+)?$/; // the SDK's pattern for ledger amounts

test("a faucet credit and clearinghouseState carry the sim's clock in ms; a withdrawal is the venue's withdraw delta", async () => {
  const user = Wallet.createRandom().address.toLowerCase() as `0x${string}`;
  const credited = now;
  await postJson(h.sim.url, "/sim/faucet", { user, amount: 1000 });
  const state = await h.info.clearinghouseState({ user });
  assert.is(state.time, credited);
  const [deposit] = await h.info.userNonFundingLedgerUpdates({ user, startTime: 0 });
  assert.is(deposit!.time, credited, "the deposit's time and the state's come from one clock");

  now += 61_000;
  const res = await postJson(h.sim.url, "/sim/withdraw", { user, amount: "250.5" });
  assert.is(res.status, 200, res.text);
  assert.equal(res.json, { ok: true, user, amount: "250.5", usdc: "749.5" });
  const ledger: any[] = await h.info.userNonFundingLedgerUpdates({ user, startTime: 0 });
  assert.is(ledger.length, 2);
  const w = ledger[1]!;
  assert.is(w.time, now);
  assert.match(w.hash, /^0x[0-9a-f]{64}$/);
  assert.is.not(w.hash, deposit!.hash);
  assert.equal(w.delta, { type: "withdraw", usdc: "250.5", nonce: now, fee: "0.0" });
  assert.match(w.delta.usdc, usdcPattern);
  assert.match(w.delta.fee, usdcPattern);
  assert.ok(Number.isSafeInteger(w.delta.nonce));
  const after = await h.info.clearinghouseState({ user });
  assert.is(after.time, w.time, "the state a reading is matched to and the ledger share the clock");
  assert.equal([after.withdrawable, after.marginSummary.accountValue], ["749.5", "749.5"]);
  assert.equal(minted, [1_000_000_000n], "a withdrawal touches no settlement token");
  const inMs = await h.info.userNonFundingLedgerUpdates({ user, startTime: now });
  assert.equal(inMs.map((l) => l.delta.type), ["withdraw"], "startTime filters in ms");
});

test("a state answered in a millisecond holds every ledger record stamped at or before it, none after", async () => {
  const user = Wallet.createRandom().address.toLowerCase() as `0x${string}`;
  now += 61_000;
  await postJson(h.sim.url, "/sim/faucet", { user, amount: 1000 });
  // The clock stands still: a state read, then a deposit in the same millisecond.
  const before = await h.info.clearinghouseState({ user });
  await postJson(h.sim.url, "/sim/faucet", { user, amount: 500 });
  const after = await h.info.clearinghouseState({ user });
  const ledger: any[] = await h.info.userNonFundingLedgerUpdates({ user, startTime: 0 });
  const valueAt = (t: number) => ledger.filter((l) => l.time <= t).reduce((sum, l) => sum + Number(l.delta.usdc), 0);
  assert.is(Number(before.marginSummary.accountValue), 1000);
  assert.is(valueAt(before.time), 1000, "the second deposit is stamped after the state that did not hold it");
  assert.is(Number(after.marginSummary.accountValue), 1500);
  assert.is(valueAt(after.time), 1500, "a later state is stamped at or after the deposit it holds");
});

test("more than the withdrawable is refused with 400 and takes nothing: margin in use stays", async () => {
  now = Date.now(); // the SDK's nonces come from the wall clock, and the sim checks them against its own
  const wallet = new Wallet(Wallet.createRandom().privateKey);
  const user = wallet.address.toLowerCase() as `0x${string}`;
  await h.sim.faucet(user, 1000);
  // 0.1 BTC at 60 000 and 20x: 300 of margin in use (and an opening fee).
  const order = await h.exchange(wallet).order({
    orders: [{ a: 0, b: true, p: "61000", s: "0.1", r: false, t: { limit: { tif: "Ioc" } } }], grouping: "na",
  });
  const status = order.response.data.statuses[0];
  assert.ok(typeof status === "object" && "filled" in status, JSON.stringify(order));
  const before = await h.info.clearinghouseState({ user });
  const free = before.withdrawable;
  assert.ok(Number(free) < 1000 - 300 + 1, free);
  const over = await postJson(h.sim.url, "/sim/withdraw", { user, amount: (Number(free) + 0.01).toFixed(2) });
  assert.is(over.status, 400);
  assert.equal(over.json.ok, false);
  assert.match(over.json.error, new RegExp(`more than the account's withdrawable ${free.replace(".", "\\.")} USDC \\(margin in use stays\\)`));
  const ledger = await h.info.userNonFundingLedgerUpdates({ user, startTime: 0 });
  assert.equal(ledger.map((l) => l.delta.type), ["deposit"]);
  assert.is((await h.info.clearinghouseState({ user })).withdrawable, free);
  const all = await postJson(h.sim.url, "/sim/withdraw", { user, amount: free });
  assert.is(all.status, 200, all.text);
  assert.is((await h.info.clearinghouseState({ user })).withdrawable, "0.0");
  assert.is((await h.info.clearinghouseState({ user })).assetPositions.length, 1, "the position stays");
});

test("bad withdrawals are 400: bad amounts, bad or unknown users; a JSON number is read as its decimal text", async () => {
  const user = Wallet.createRandom().address;
  await h.sim.faucet(user, 100);
  for (const amount of ["1.0000001", "-5", 0, "abc", 1e-7]) {
    const res = await postJson(h.sim.url, "/sim/withdraw", { user, amount });
    assert.is(res.status, 400, String(amount));
    assert.is(res.json.ok, false);
  }
  assert.is((await postJson(h.sim.url, "/sim/withdraw", { user: "0x123", amount: 1 })).status, 400);
  assert.is((await postJson(h.sim.url, "/sim/withdraw", { amount: 1 })).status, 400);
  const stranger = await postJson(h.sim.url, "/sim/withdraw", { user: Wallet.createRandom().address, amount: 1 });
  assert.is(stranger.status, 400);
  assert.match(stranger.json.error, /has no account on the sim/);
  assert.is((await fetch(`${h.sim.url}/sim/withdraw`)).status, 405);
  const ok = await postJson(h.sim.url, "/sim/withdraw", { user, amount: 0.1 });
  assert.equal([ok.status, ok.json.amount, ok.json.usdc], [200, "0.1", "99.9"]);
});

test.run();
