// Fault injection through the programmatic API (fault-controls.test.ts drives it over HTTP) and the request log: what a caller sees, and whether the
// action was processed, for each kind of fault.
import { ExchangeClient, HttpRequestError, HttpTransport } from "@nktkas/hyperliquid";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { FaultSpecError } from "../../daemon/sim/index.js";
import { failure, fundedWallet, postJson, randomCloid, restingOrder, startSim, statusByCloid as statusByCloidOf, type SimHarness } from "./_support.js";
import type { Wallet } from "ethers";

let h: SimHarness;
let w: Wallet;
let user: `0x${string}`;

test.before(async () => {
  h = await startSim();
  w = await fundedWallet(h.sim);
  user = w.address.toLowerCase() as `0x${string}`;
});
test.after(async () => {
  await h.close();
});
test.before.each(() => {
  h.sim.faults.clear();
});

const statusByCloid = (c: `0x${string}`) => statusByCloidOf(h, user, c);

test("http500: answered 500, not processed", async () => {
  h.sim.faults.next({ kind: "http500" });
  const c = randomCloid();
  const e = await failure(h.exchange(w).order(restingOrder(c)));
  assert.instance(e, HttpRequestError);
  assert.match(String(e), /500/);
  assert.is(await statusByCloid(c), "unknownOid");
  const last = h.sim.requests.at(-2)!; // the orderStatus query came after it
  assert.equal([last.path, last.fault, last.status, last.result], ["/exchange", "http500", 500, undefined]);
});

test("timeout: the connection hangs unanswered and nothing is processed", async () => {
  h.sim.faults.next({ kind: "timeout", delayMs: 2_000 });
  const c = randomCloid();
  const started = Date.now();
  const impatient = new ExchangeClient({ transport: new HttpTransport({ apiUrl: h.sim.url, isTestnet: true, timeout: 300 }), wallet: w });
  const e = await failure(impatient.order(restingOrder(c)));
  assert.ok(Date.now() - started < 1_500);
  assert.instance(e, HttpRequestError);
  assert.is(await statusByCloid(c), "unknownOid");
});

test("drop-after-processing: the caller gets no answer but the order exists", async () => {
  h.sim.faults.next({ kind: "drop-after-processing" });
  const c = randomCloid();
  const e = await failure(h.exchange(w).order(restingOrder(c)));
  assert.instance(e, HttpRequestError);
  assert.is(await statusByCloid(c), "open");
  const entry = h.sim.requests.find((r) => r.fault === "drop-after-processing")!;
  assert.is(entry.status, undefined);
  assert.ok((entry.result as any).response.data.statuses[0].resting, "the log keeps what would have been sent");
  assert.is((entry.body as any).action.orders[0].c, c, "the log records what was sent");
});

test("drop-after-processing with then: http500 answers 500 after committing", async () => {
  h.sim.faults.next({ kind: "drop-after-processing", then: "http500" });
  const c = randomCloid();
  const e = await failure(h.exchange(w).order(restingOrder(c)));
  assert.match(String(e), /500/);
  assert.is(await statusByCloid(c), "open");
});

test("delay: processed and answered late; count and endpoint select requests", async () => {
  h.sim.faults.next({ kind: "delay", delayMs: 150, endpoint: "info", count: 2 });
  assert.equal(h.sim.faults.pending(), [{ kind: "delay", endpoint: "info", actions: null, left: 2, delayMs: 150, then: null }]);
  const t0 = Date.now();
  await h.info.allMids();
  await h.info.allMids();
  assert.ok(Date.now() - t0 >= 300);
  assert.equal(h.sim.faults.pending(), []);
  const t1 = Date.now();
  await h.info.allMids();
  assert.ok(Date.now() - t1 < 150, "the fault was used up");
});

test("faults wait for their endpoint; exchange faults leave info alone", async () => {
  h.sim.faults.next({ kind: "http500" });
  await h.info.meta();
  assert.is(h.sim.faults.pending().length, 1);
  h.sim.faults.clear();
  assert.throws(() => h.sim.faults.next({ kind: "http500", count: 0 }), /positive/);
});

test("the programmatic API takes actions and refuses what the HTTP control refuses", async () => {
  h.sim.faults.next({ kind: "drop-after-processing", actions: ["cancel"] });
  const c = randomCloid();
  const placed: any = await h.exchange(w).order(restingOrder(c));
  const oid = placed.response.data.statuses[0].resting.oid;
  const e = await failure(h.exchange(w).cancel({ cancels: [{ a: 0, o: oid }] }));
  assert.instance(e, HttpRequestError);
  assert.is(await statusByCloid(c), "canceled", "processed, though the caller got no answer");
  assert.throws(() => h.sim.faults.next({ kind: "http500", endpoint: "info", actions: ["order"] }),
    (err: unknown) => err instanceof FaultSpecError && Object.keys(err.problems).join() === "endpoint");
  assert.throws(() => h.sim.faults.next({ kind: "http500", then: "drop" }), /then: applies only to drop-after-processing/);
  assert.equal(h.sim.faults.pending(), []);
});

test("the request log records bodies, statuses and remote addresses", async () => {
  h.sim.clearRequests();
  await h.info.allMids();
  await postJson(h.sim.url, "/sim/price", { symbol: "SOL", price: "151" });
  assert.equal(h.sim.requests.map((r) => [r.path, r.status, r.remoteAddress]), [
    ["/info", 200, "127.0.0.1"],
    ["/sim/price", 200, "127.0.0.1"],
  ]);
  assert.equal(h.sim.requests[0].body, { type: "allMids" });
});

test.run();
