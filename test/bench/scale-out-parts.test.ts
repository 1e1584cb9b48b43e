// The parts of the scale-out benchmark whose mistakes would not stop it but would bend its figures:
// the per-daemon budget proxy in front of a real sim (what a request weighs, that a drained bucket
// holds background reads for the refill, that a request its client gave up on spends nothing), and
// the reading rate taken from stored readings, and which readings after a kill are a survivor's.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { Wallet } from "ethers";
import { request } from "node:http";
import { readingRhythm } from "../../bench/scale-out-coverage.js";
import { firstSurvivorReadings } from "../../bench/scale-out-failover.js";
import { requestWeight, serve } from "../../bench/servers/budget-proxy.js";
import { startSim, type SimHarness } from "../sim/_support.js";
import { waitUntil } from "../helpers/util.js";

let sim: SimHarness | undefined;
let proxy: ReturnType<typeof serve> | undefined;
let url = "";

test.before(async () => {
  sim = await startSim();
  proxy = serve();
  [url] = await proxy.start(sim.sim.url, 1);
});
test.after(async () => {
  await proxy?.close();
  await sim?.close();
});

const info = (body: unknown) =>
  fetch(`${url}/info`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
/** Posts `body` to /info and closes the connection once the request is written, without waiting for an answer. */
const abandon = (body: unknown) => new Promise<void>((resolve) => {
  const req = request(`${url}/info`, { method: "POST", headers: { "Content-Type": "application/json" } });
  req.on("error", () => resolve());
  req.on("finish", () => (req.destroy(), resolve()));
  req.end(JSON.stringify(body));
});
const user = Wallet.createRandom().address;

test("Hyperliquid's weights: 2 for the account state, 20 for fills and the ledger, 60 for userRole, 1 per 40 orders of an action", () => {
  assert.is(requestWeight("/info", { type: "clearinghouseState", user }), 2);
  assert.is(requestWeight("/info", { type: "allMids" }), 2);
  assert.is(requestWeight("/info", { type: "userFillsByTime", user }), 20);
  assert.is(requestWeight("/info", { type: "userNonFundingLedgerUpdates", user }), 20);
  assert.is(requestWeight("/info", { type: "userRole", user }), 60);
  assert.is(requestWeight("/exchange", { action: { type: "order", orders: new Array(80).fill({}) } }), 3);
  assert.is(requestWeight("/exchange", { action: { type: "cancel", cancels: [{}] } }), 1);
  assert.is(requestWeight("/sim/faucet", { user }), 0);
});

test("open: requests reach the sim at once, and their weight is counted", async () => {
  proxy!.budget("open");
  const before = proxy!.stats()[0]!;
  const res = await info({ type: "clearinghouseState", user });
  assert.is(res.status, 200);
  assert.ok("marginSummary" in ((await res.json()) as object));
  const after = proxy!.stats()[0]!;
  assert.is(after.requests - before.requests, 1);
  assert.is(after.weight - before.weight, 2);
});

test("drained: background reads wait for the refill (20 weight a second) above the 200 kept for trading", async () => {
  proxy!.budget("drained");
  const started = Date.now();
  // 10 reads of 2: 20 weight, a second's refill, none of it there at the start.
  for (let i = 0; i < 10; i++) assert.is((await info({ type: "clearinghouseState", user })).status, 200);
  assert.ok(Date.now() - started >= 900, `10 reads took ${Date.now() - started} ms on a drained bucket`);
});

test("a request its client gave up on while it waited is not sent and spends nothing", async () => {
  proxy!.budget("drained");
  const before = proxy!.stats()[0]!;
  // userRole weighs 60, three seconds' refill; the client leaves as soon as its request is written
  // (not after a set time, which a loaded machine could stretch past the refill).
  await abandon({ type: "userRole", user });
  await waitUntil(() => proxy!.stats()[0]!.dropped > before.dropped, { what: "the abandoned request dropped" });
  const after = proxy!.stats()[0]!;
  assert.is(after.weight, before.weight);
  assert.is(after.requests, before.requests);
});

test("the reading rate is each vault's own, whatever the window's edges cut from its batches", () => {
  // Three vaults read together every 4 s; the window starts 1 s before a batch and ends 1 s after one.
  const arrivals = [1_000, 5_000, 9_000, 13_000].flatMap((t) => ["a", "b", "c"].map((vault) => ({ vault, seenMs: t })));
  const r = readingRhythm(arrivals, 3, 2);
  // 3 vaults every 4 s is 1.5 per 2-s interval (a count over the 14-s window would say 12 / 7 = 1.71).
  assert.is(r.perInterval, 1.5);
  assert.is(r.cycleMs, 4_000);
  assert.is(r.maxGapMs, 4_000);
  assert.is(r.short, 0);
  assert.is(readingRhythm(arrivals.slice(0, 4), 3, 2).short, 2, "b and c read once in that window");
});

test("after a kill, a reading is the victim's when the victim had its transaction sent; any other stored after the kill is a survivor's", () => {
  const killedAt = 1_000_500;
  const at = (vault: string, ms: number, requester: string | null, nonce: number | null) => ({ vault, seenMs: killedAt + ms, observedAt: 1_000, requester, nonce });
  const victim = { id: "d-victim", sender: false, lastNonce: 41 };
  const late = [
    at("0xA", 13, "d-victim", 40), // handed to the sender before the kill, mined after
    at("0xB", 900, "d-victim", 43), // handed over before the kill, signed by the sender after it
  ];
  assert.is(firstSurvivorReadings(late, ["0xa", "0xb"], killedAt, victim), undefined);
  const taken = [...late, at("0xB", 1_400, "d-other", 44), at("0xA", 1_900, null, 45), at("0xA", 6_000, null, 46)];
  assert.equal(firstSurvivorReadings(taken, ["0xa", "0xb"], killedAt, victim)!.map((a) => a.seenMs - killedAt), [1_900, 1_400]);
  assert.is(firstSurvivorReadings(taken, ["0xa", "0xb", "0xc"], killedAt, victim), undefined, "one vault not read yet");

  // The victim sent its own: what it had signed by the kill is its own; what the next sender signs after is a survivor's.
  const sender = { id: "d-victim", sender: true, lastNonce: 41 };
  const own = [at("0xA", 300, null, 41), at("0xA", 1_200, null, 42)];
  assert.equal(firstSurvivorReadings(own, ["0xa"], killedAt, sender)!.map((a) => a.seenMs - killedAt), [1_200]);
  assert.is(firstSurvivorReadings([at("0xA", 1_000, null, null)], ["0xa"], killedAt, sender), undefined, "not in the journal: not taken for a survivor's");
});

test.run();
