// Warnings before a limit, end to end: a vault long 0.1 BTC on 10,000 USDC (5% daily limit) whose
// drawdown the sim's price (POST /sim/price) walks through 80% and 90% of the limit, back below 70%
// and up again, one oracle cycle a step. Exactly the expected LimitNear events, in order, in the
// events list, on the investor's stream and at her webhook; none twice across a daemon restart in
// the middle; none from the reading that breaches. Runs on both stores.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { fakeClock, startTestDaemon, type TestDaemon } from "../helpers/daemon.js";
import { openSse } from "../helpers/sse.js";
import { waitUntil } from "../helpers/util.js";
import { longBtc, vaultCase, type VaultCase } from "../helpers/vaults.js";
import { startReceiver } from "../alerts/_receiver.js";

// No price stream: only the oracle's cycles read the vault, one reading a step.
const config = { priceStream: false, webhooksAllowPrivate: true };

async function simPrice(d: TestDaemon, price: string) {
  const res = await fetch(`${d.daemon.sim!.url}/sim/price`, {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ symbol: "BTC", price }),
  });
  assert.is(res.status, 200, await res.text());
}

/** The price, then one oracle cycle: the reading it writes is what the contract (and the warnings) judge. */
async function step(d: TestDaemon, price: string) {
  await simPrice(d, price);
  await d.daemon.oracle.cycle();
}

type Warning = { id: number; type: string; data: { limit: string; level: number; drawdown: number; limitPercent: number } };

async function events(c: VaultCase, d: TestDaemon): Promise<Warning[]> {
  const r = await d.http.get(`/api/vaults/${c.vault}/events?limit=1000`, { token: c.ivy.token });
  assert.is(r.status, 200, JSON.stringify(r.body));
  return [...r.body.data.events].reverse();
}
const warnings = async (c: VaultCase, d: TestDaemon) => (await events(c, d)).filter((e) => e.type === "LimitNear");
const levels = (list: Warning[]) => list.map((e) => `${e.data.limit} ${e.data.level}`);

test("80%, 90%, back below 70% and up again: each crossing once, across a restart; the breach itself only pauses", async () => {
  const clock = fakeClock(Date.now(), { realTime: true });
  const rx = await startReceiver();
  const first = await startTestDaemon({ startOracle: false, clock, config });
  let second: TestDaemon | undefined;
  try {
    const c = await vaultCase(first);
    const hook = await first.http.post("/api/webhooks", { url: rx.url("/ivy") }, { token: c.ivy.token });
    assert.is(hook.status, 200, JSON.stringify(hook.body));
    const stream = await openSse(`${first.url}/api/events`, c.ivy.token);
    await longBtc(c); // 0.1 BTC at 60,000: 1,000 of BTC is about 1% of the vault
    await step(first, "60000"); // the day's first reading, about 9,997
    await step(first, "56700"); // 3.3% daily: 66% of the limit
    assert.equal(await warnings(c, first), []);
    await step(first, "55900"); // 4.1%: 82%
    await step(first, "55700"); // 4.3%: 86%, told already
    await step(first, "55400"); // 4.6%: 92%
    const told = await warnings(c, first);
    assert.equal(levels(told), ["daily 80", "daily 90"]);
    assert.ok(told[0]!.data.drawdown >= 4 && told[0]!.data.drawdown < 4.5 && told[0]!.data.limitPercent === 5, JSON.stringify(told[0]));
    assert.ok(told[1]!.data.drawdown >= 4.5 && told[1]!.data.drawdown < 5, JSON.stringify(told[1]));
    // The stream carries the same two, with the same figures.
    const streamedWarnings = () => stream.events.filter((e) => e.event === "LimitNear");
    await waitUntil(() => streamedWarnings().length >= 2, { what: "two LimitNear events on the investor's stream" });
    const streamed = streamedWarnings();
    assert.equal(streamed.map((e) => [e.id, e.data.limit, e.data.level, e.data.drawdown]), told.map((e) => [e.id, e.data.limit, e.data.level, e.data.drawdown]));
    stream.close();
    await first.daemon.stop();

    second = await startTestDaemon({ startOracle: false, clock, config, dataDir: first.dataDir });
    const d = second;
    assert.equal(levels(await warnings(c, d)), ["daily 80", "daily 90"], "the restart records nothing again");
    await step(d, "55300"); // 4.7%: still past 90% and told
    await step(d, "56000"); // 4.0%: 80%, not below 70%: nothing is armed again
    await step(d, "55450"); // 4.55%: 91%, still told
    assert.equal(levels(await warnings(c, d)), ["daily 80", "daily 90"]);
    await step(d, "56700"); // 3.3%: below 70%, both armed again
    await step(d, "55450"); // 4.55% at once: one event, at 90
    assert.equal(levels(await warnings(c, d)), ["daily 80", "daily 90", "daily 90"]);
    await step(d, "56700"); // armed again
    await step(d, "54800"); // 5.2%: the reading breaches, and pauses; it warns of nothing
    const after = await events(c, d);
    assert.ok(after.some((e) => e.type === "Paused"), after.map((e) => e.type).join());
    assert.equal(levels(after.filter((e) => e.type === "LimitNear")), ["daily 80", "daily 90", "daily 90"]);
    // Each reached the investor's webhook once (the default filter takes LimitNear), the last through the second daemon.
    const ids = after.filter((e) => e.type === "LimitNear").map((e) => e.id);
    const delivered = () => rx.at("/ivy").map((r) => JSON.parse(r.body).event as Warning).filter((e) => e.type === "LimitNear");
    await waitUntil(() => delivered().length >= 3, { what: "three LimitNear deliveries" });
    assert.equal(delivered().map((e) => e.id).sort(), [...ids].sort());
  } finally {
    await second?.close();
    await first.close().catch(() => undefined);
    await rx.stop();
  }
});

test.run();
