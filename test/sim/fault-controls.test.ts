// The fault queue over HTTP (/sim/faults), as any client on the machine reaches it: each kind seen by
// the real SDK or fetch, count, endpoint and action filters, list and clear, refused input, and the
// loopback-only rule. The queue itself is also tested in-process in faults.test.ts.
import { HttpRequestError } from "@nktkas/hyperliquid";
import type { Wallet } from "ethers";
import { networkInterfaces } from "node:os";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { simFaults, SimFaultsError } from "../helpers/sim-faults.js";
import { failure, fundedWallet, postJson, randomCloid, restingOrder, startSim, statusByCloid as statusByCloidOf, statusesOf, type SimHarness } from "./_support.js";

let h: SimHarness;
let w: Wallet;
let user: `0x${string}`;
let faults: ReturnType<typeof simFaults>;

test.before(async () => {
  h = await startSim({ host: "0.0.0.0" }); // reachable from a non-loopback address for the 403 test
  w = await fundedWallet(h.sim);
  user = w.address.toLowerCase() as `0x${string}`;
  faults = simFaults(h.sim.url);
});
test.after(async () => {
  await h.close();
});
test.before.each(() => {
  h.sim.faults.clear();
});

/** True when the server closed the connection without an answer (undici's "other side closed"). */
function closedUnanswered(e: any): boolean {
  for (let c = e; c; c = c.cause) if (c.code === "UND_ERR_SOCKET") return true;
  return false;
}

const statusByCloid = (c: `0x${string}`) => statusByCloidOf(h, user, c);

/** Node may fire a timer up to a millisecond before its time: lower bounds on waits allow for it. */
const SLACK_MS = 5;

const entry = (p: Partial<Record<string, unknown>>) => ({ endpoint: "exchange", actions: null, left: 1, delayMs: null, then: null, ...p });

test("http500: the SDK gets HTTP 500 and the order was not placed", async () => {
  assert.equal(await faults.add({ kind: "http500" }), [entry({ kind: "http500" })]);
  const c = randomCloid();
  const e = await failure(h.exchange(w).order(restingOrder(c)));
  assert.instance(e, HttpRequestError);
  assert.match(String(e), /500/);
  assert.is(await statusByCloid(c), "unknownOid");
  assert.equal(await faults.list(), []);
});

test("timeout: the connection closes unanswered after delayMs and nothing is processed", async () => {
  assert.equal(await faults.add({ kind: "timeout", delayMs: 200 }), [entry({ kind: "timeout", delayMs: 200 })]);
  const c = randomCloid();
  const started = performance.now();
  const e = await failure(h.exchange(w).order(restingOrder(c))); // the SDK's own timeout is 5 s
  // A lower bound only (a loaded machine makes it longer), on the monotonic clock; Node may fire a
  // timer a millisecond early, hence the slack.
  assert.ok(performance.now() - started >= 200 - SLACK_MS, "held at least delayMs");
  assert.instance(e, HttpRequestError);
  assert.ok(closedUnanswered(e), `closed by the sim, not the client: ${String(e.cause?.cause ?? e)}`);
  assert.is(await statusByCloid(c), "unknownOid");
});

test("drop-after-processing: no answer reaches the caller, yet the order was placed", async () => {
  await faults.add({ kind: "drop-after-processing" });
  const c = randomCloid();
  const e = await failure(h.exchange(w).order(restingOrder(c)));
  assert.ok(closedUnanswered(e), String(e));
  assert.is(await statusByCloid(c), "open");
  assert.equal(await faults.add({ kind: "drop-after-processing", then: "http500" }), [entry({ kind: "drop-after-processing", then: "http500" })]);
  const c2 = randomCloid();
  assert.match(String(await failure(h.exchange(w).order(restingOrder(c2)))), /500/);
  assert.is(await statusByCloid(c2), "open");
});

test("delay: the normal answer arrives after delayMs", async () => {
  await faults.add({ kind: "delay", endpoint: "info", delayMs: 300 });
  const started = performance.now();
  const mids = await h.info.allMids();
  assert.ok(performance.now() - started >= 300 - SLACK_MS, "answered no earlier than delayMs");
  assert.is(mids.BTC, "60000.0");
  assert.equal(await faults.list(), []);
});

test("count and endpoint: an info fault skips /exchange and fails exactly `count` info requests", async () => {
  await faults.add({ kind: "http500", endpoint: "info", count: 2 });
  const [placed] = await statusesOf(h.exchange(w).order(restingOrder(randomCloid())));
  assert.ok(placed.resting, "the exchange request did not consume it");
  assert.equal((await faults.list()).map((f) => f.left), [2]);
  for (let i = 0; i < 2; i++) assert.match(String(await failure(h.info.meta())), /500/);
  assert.ok((await h.info.meta()).universe.length > 0, "the third passes");
  await faults.add({ kind: "http500", endpoint: "any", count: 2 });
  assert.match(String(await failure(h.info.meta())), /500/);
  assert.match(String(await failure(h.exchange(w).order(restingOrder(randomCloid())))), /500/);
  assert.equal(await faults.list(), []);
});

test("actions: a cancel fault lets orders through and hits the next cancel", async () => {
  assert.equal(await faults.add({ kind: "http500", actions: ["cancel"] }), [entry({ kind: "http500", actions: ["cancel"] })]);
  const [placed] = await statusesOf(h.exchange(w).order(restingOrder(randomCloid())));
  const oid = placed.resting.oid;
  await h.info.openOrders({ user }); // an info request does not match either
  assert.equal((await faults.list()).map((f) => f.left), [1], "the order and the query left it queued");
  const cancel = () => h.exchange(w).cancel({ cancels: [{ a: 0, o: oid }] });
  assert.match(String(await failure(cancel())), /500/);
  assert.ok((await h.info.openOrders({ user })).some((o) => o.oid === oid), "the failed cancel was not processed");
  assert.equal(await faults.list(), []);
  assert.equal(await statusesOf(cancel()), ["success"]);
});

test("actions: cancelByCloid is its own action type; endpoint any with actions still filters", async () => {
  const [c1, c2] = [randomCloid(), randomCloid()];
  const two = { orders: [...restingOrder(c1).orders, ...restingOrder(c2).orders], grouping: "na" as const };
  const [first] = await statusesOf(h.exchange(w).order(two));
  await faults.add({ kind: "http500", endpoint: "any", actions: ["order", "cancelByCloid"], count: 2 });
  await h.info.openOrders({ user });
  assert.equal(await statusesOf(h.exchange(w).cancel({ cancels: [{ a: 0, o: first.resting.oid }] })), ["success"]);
  assert.equal((await faults.list()).map((f) => f.left), [2], "neither info nor a cancel by oid matched");
  assert.match(String(await failure(h.exchange(w).order(restingOrder(randomCloid())))), /500/);
  assert.match(String(await failure(h.exchange(w).cancelByCloid({ cancels: [{ asset: 0, cloid: c2 }] }))), /500/);
  assert.is(await statusByCloid(c2), "open", "not processed");
  assert.equal(await faults.list(), []);
});

test("GET lists the queue in order with defaults filled in; DELETE clears it", async () => {
  await faults.add({ kind: "timeout" });
  await faults.add({ kind: "delay", endpoint: "info", count: 3 });
  const listed = [entry({ kind: "timeout", delayMs: 30_000 }), entry({ kind: "delay", endpoint: "info", left: 3, delayMs: 1_000 })];
  assert.equal(await faults.add({ kind: "drop-after-processing", count: 2 }), [...listed, entry({ kind: "drop-after-processing", left: 2, then: "drop" })]);
  assert.equal((await faults.list()).length, 3);
  assert.equal(h.sim.faults.pending(), await faults.list(), "the same queue as the programmatic API");
  const res = await fetch(new URL("/sim/faults", h.sim.url), { method: "DELETE" });
  assert.equal([res.status, await res.json()], [200, { ok: true, pending: [] }]);
  assert.equal(await faults.list(), []);
  assert.equal(h.sim.faults.pending(), []);
});

const BAD: [string, unknown, string][] = [
  ["unknown kind", { kind: "boom" }, "kind"],
  ["missing kind", {}, "kind"],
  ["count 0", { kind: "http500", count: 0 }, "count"],
  ["fractional count", { kind: "http500", count: 1.5 }, "count"],
  ["count as text", { kind: "http500", count: "2" }, "count"],
  ["count above the cap", { kind: "http500", count: 100_001 }, "count"],
  ["negative delayMs", { kind: "delay", delayMs: -1 }, "delayMs"],
  ["delayMs above the cap", { kind: "timeout", delayMs: 600_001 }, "delayMs"],
  ["fractional delayMs", { kind: "delay", delayMs: 1.5 }, "delayMs"],
  ["delayMs on http500", { kind: "http500", delayMs: 10 }, "delayMs"],
  ["unknown endpoint", { kind: "http500", endpoint: "ws" }, "endpoint"],
  ["actions as text", { kind: "http500", actions: "order" }, "actions"],
  ["empty actions", { kind: "http500", actions: [] }, "actions"],
  ["empty action name", { kind: "http500", actions: [""] }, "actions"],
  ["action not a string", { kind: "http500", actions: [1] }, "actions"],
  ["actions on info", { kind: "http500", endpoint: "info", actions: ["order"] }, "endpoint"],
  ["then without drop-after-processing", { kind: "http500", then: "drop" }, "then"],
  ["unknown then", { kind: "drop-after-processing", then: "close" }, "then"],
  ["unknown field", { kind: "delay", delay_ms: 5 }, "delay_ms"],
  ["an array", [{ kind: "http500" }], "body"],
  ["a string", "http500", "body"],
];

test("bad fault specs are refused with 400 naming the field, and queue nothing", async () => {
  for (const [what, body, field] of BAD) {
    const res = await postJson(h.sim.url, "/sim/faults", JSON.stringify(body));
    assert.is(res.status, 400, what);
    assert.is(res.json.ok, false, what);
    assert.equal(Object.keys(res.json.details), [field], what);
    assert.ok(res.json.error.startsWith(`${field}: `), `${what}: ${res.json.error}`);
  }
  const err = await failure(faults.add({ kind: "http500", count: -3 }));
  assert.instance(err, SimFaultsError);
  assert.is(err.status, 400);
  assert.match(err.message, /count: must be a positive integer up to 100000/);
  assert.equal(await faults.list(), []);
  const put = await fetch(new URL("/sim/faults", h.sim.url), { method: "PUT" });
  assert.equal([put.status, (await put.json()).ok], [405, false]);
  assert.equal(await faults.list(), []);
});

test("the fault routes answer only loopback clients", async () => {
  const external = Object.values(networkInterfaces()).flat().find((i) => i && i.family === "IPv4" && !i.internal);
  if (!external) {
    console.log("no non-loopback IPv4 interface here: skipping the remote-client test");
    return;
  }
  h.sim.faults.next({ kind: "delay", endpoint: "info", delayMs: 0 });
  const before = h.sim.faults.pending();
  const remote = `http://${external.address}:${h.sim.port}`;
  const posted = await postJson(remote, "/sim/faults", { kind: "http500" }, { "X-Forwarded-For": "127.0.0.1" });
  assert.is(posted.status, 403);
  for (const method of ["GET", "DELETE"]) {
    assert.is((await fetch(`${remote}/sim/faults`, { method })).status, 403, method);
  }
  assert.equal(h.sim.faults.pending(), before, "nothing queued or cleared");
});

test.run();
