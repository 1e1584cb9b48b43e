// Finished webhook deliveries are kept 30 days, restarts included: a contract event's delivery
// (VaultCreated and Closed, written with the chain's events) and a daemon event's (BalanceMismatch,
// the oracle's) are still listed after the daemon restarts on the same data directory, when the
// delivery worker prunes what is older than that. Real daemons, a real receiver on 127.0.0.1.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createVault, fakeClock, party, signIn, startTestDaemon, type Party, type TestDaemon } from "../helpers/daemon.js";
import { tempDir, waitUntil } from "../helpers/util.js";
import { startReceiver, type Receiver } from "./_receiver.js";

const tmp = tempDir("tradevault-webhooks-restart-");
const clock = fakeClock(Date.now(), { realTime: true });
let d: TestDaemon | undefined;
let rx: Receiver | undefined;

const start = () => startTestDaemon({ dataDir: tmp.path, clock, startOracle: false, config: { webhooksAllowPrivate: true } });

test.after(async () => {
  await d?.close();
  await rx?.stop();
  tmp.remove();
});

const EVENTS = ["VaultCreated", "BalanceMismatch", "Closed"];

async function deliveries(daemon: TestDaemon, who: Party, id: string) {
  const r = await daemon.http.get(`/api/webhooks/${id}/deliveries`, { token: who.token });
  assert.is(r.status, 200, JSON.stringify(r.body));
  return r.body.data.deliveries as Array<{ eventType: string; status: string; attempts: number; nextAttemptAt: number | null; deliveredAt: number | null }>;
}

test("a contract event's delivery, delivered, is still listed after a restart", async () => {
  rx = await startReceiver();
  d = await start();
  const [ivy, tom] = await Promise.all([party(d, { usdc: 12_000, agent: true }), party(d)]);
  const hook = await d.http.post("/api/webhooks", { url: rx.url("/kept"), events: EVENTS }, { token: ivy.token });
  assert.is(hook.status, 200, JSON.stringify(hook.body));
  const { id } = hook.body.data.webhook;
  const vault = await createVault(d, ivy, tom); // the first reading (12 000 against 10 000) is a BalanceMismatch
  await d.daemon.oracle.cycle();
  const closed = await d.http.post(`/api/vaults/${vault}/close`, undefined, { token: ivy.token });
  assert.is(closed.status, 200, JSON.stringify(closed.body));
  const delivered = (ds: Awaited<ReturnType<typeof deliveries>>) => EVENTS.every((t) => ds.some((x) => x.eventType === t && x.status === "delivered"));
  const before = (await waitUntil(async () => {
    const ds = await deliveries(d!, ivy, id);
    return delivered(ds) ? ds : undefined;
  }, { what: "the three deliveries recorded delivered" }))!;
  const nowS = Math.floor(clock() / 1000);
  for (const x of before) assert.ok(Math.abs(x.deliveredAt! - nowS) < 600, `${x.eventType} delivered at ${x.deliveredAt}, now ${nowS}`);
  await d.close();

  // The delivery worker prunes as it starts, without holding the start up; its stop waits for that
  // prune. So a second restart lists what the first one's prune kept.
  d = await start();
  await d.close();
  d = await start();
  const again = { ...ivy, token: (await signIn(d.http, ivy.wallet)).token };
  const after = await deliveries(d, again, id);
  assert.equal(after.map((x) => [x.eventType, x.status]).sort(), before.map((x) => [x.eventType, x.status]).sort());
  assert.equal(rx.at("/kept").map((r) => JSON.parse(r.body).event.type).sort(), [...EVENTS].sort(), "each sent once");
});

test.run();
