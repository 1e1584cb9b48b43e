// The user notices and the operator's alerts, on one real daemon (a SQLite file or PostgreSQL, the
// embedded chain, the sim) with real HTTP receivers on 127.0.0.1: DeadlineApproaching recorded once
// (across a restart on the same data directory) and on the event stream; ProposalSigned addressed to
// the party yet to sign and delivered, signed, to their webhook; an agent key expiring, then lapsed,
// told to the investor once each; an operator alert sent once when it starts and once when it clears
// (the gas, shared; the exchange unreachable, naming its daemon), not every check, not again after a
// restart; an alert target that fails is retried and served once.
import { createHmac } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { toQuantity } from "ethers";
import { test } from "uvu";
import * as assert from "uvu/assert";
import pino from "pino";
import { createAlertSender, type OperatorAlert } from "../../daemon/monitor/alert-sender.js";
import { fakeClock, party, signTyped, startTestDaemon, type TestDaemon } from "../helpers/daemon.js";
import { openSse, type SseReader } from "../helpers/sse.js";
import { tempDir, waitUntil, within } from "../helpers/util.js";
import { vaultCase, type VaultCase } from "../helpers/vaults.js";
import { simFaults } from "../helpers/sim-faults.js";
import { daemonId } from "../../daemon/shared-store.js";

interface Receiver {
  url: string;
  hits: Array<{ path: string; headers: Record<string, string | string[] | undefined>; body: string }>;
  /** Statuses to answer, in order; 200 once they run out. */
  answers: number[];
  server: Server;
}

async function receiver(): Promise<Receiver> {
  const r = { hits: [], answers: [] } as unknown as Receiver;
  r.server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      r.hits.push({ path: req.url ?? "", headers: req.headers, body });
      res.writeHead(r.answers.shift() ?? 200).end("ok");
    });
  });
  await new Promise<void>((done) => r.server.listen(0, "127.0.0.1", done));
  r.url = `http://127.0.0.1:${(r.server.address() as AddressInfo).port}`;
  return r;
}

/** The json alerts the receiver got on /ops, as sent. */
const opsAlerts = (r: Receiver) => r.hits.filter((h) => h.path === "/ops").map((h) => JSON.parse(h.body) as { alert: string; state: string; title: string; text: string; daemon: string | null });
const sent = (r: Receiver, key: string, state: string) => opsAlerts(r).filter((a) => a.alert === key && a.state === state).length;

const dir = tempDir();
const clock = fakeClock(Date.now(), { realTime: true });
const ops = await receiver();
/** Far above the operator's balance (the embedded chain gives it about 10^12): the gas alert starts at the first check. */
const GAS_BELOW = "100000000000000";
const config = { alertUrls: [`json:${ops.url}/ops`, `slack:${ops.url}/slack`], alertGasBelow: GAS_BELOW, webhooksAllowPrivate: true };
let d: TestDaemon = await startTestDaemon({ dataDir: dir.path, clock, startOracle: false, config });
let c: VaultCase;
let sse: SseReader;

const countEvents = async (type: string) => {
  const r = await d.http.get(`/api/vaults/${c.vault}/events?limit=1000`, { token: c.ivy.token });
  assert.is(r.status, 200, JSON.stringify(r.body));
  return (r.body.data.events as Array<{ type: string }>).filter((e) => e.type === type).length;
};
const notices = (user: string) => d.daemon.store.db.selectFrom("user_notices").selectAll().where("user", "=", user).orderBy("created_at").execute();
/** One oracle cycle as the timer runs it; its failure (a read the sim refused) does not matter here. */
const cycle = () => d.daemon.oracle.cycle().catch(() => undefined);

test("DeadlineApproaching: recorded once, 24 h before the deadline, seen on the stream, and not again after a restart", async () => {
  const deadline = Math.floor(clock() / 1000) + 23 * 3600;
  c = await vaultCase(d, { dealDeadline: deadline });
  sse = await openSse(`${d.url}/api/events`, c.ivy.token);
  await cycle();
  const streamed = (await waitUntil(() => sse.events.find((e) => e.event === "DeadlineApproaching"), { what: "DeadlineApproaching on the stream" }))!;
  assert.is(streamed.data.vault, c.vault);
  assert.is(streamed.data.deadline, deadline);
  assert.is(streamed.data.hoursLeft, Math.floor((streamed.data.deadline - streamed.data.time) / 3600));
  assert.ok(streamed.data.hoursLeft <= 24 && streamed.data.hoursLeft >= 22, String(streamed.data.hoursLeft));
  await cycle();
  assert.is(await countEvents("DeadlineApproaching"), 1);
  sse.close();
  await d.close();
  d = await startTestDaemon({ dataDir: dir.path, clock, startOracle: false, config });
  await cycle();
  await cycle();
  assert.is(await countEvents("DeadlineApproaching"), 1);
});

test("ProposalSigned: the trader's signature reaches the investor's webhook, signed, once; the second signature tells nobody", async () => {
  const [ivy, tom] = await Promise.all([party(d), party(d)]);
  const hook = await d.http.post("/api/webhooks", { url: `${ops.url}/ivy`, format: "json", events: ["ProposalSigned"] }, { token: ivy.token });
  assert.is(hook.status, 200, JSON.stringify(hook.body));
  const secret: string = hook.body.data.webhook.secret;
  const body = {
    investor: ivy.address, trader: tom.address, initialBalance: "5000", maxDrawdown: 10, dailyDrawdown: 5,
    dealDeadline: Math.floor(clock() / 1000) + 30 * 86_400, profitShare: { trader: 20, investor: 80 },
  };
  const p = (await d.http.post("/api/proposals", body, { token: tom.token })).body.data.proposal;
  const signature = await signTyped(tom.wallet, p.typedData);
  assert.is((await d.http.post(`/api/proposals/${p.id}/accept`, { signature }, { token: tom.token })).status, 200);
  // Signed again (a retried request): still one notice.
  assert.is((await d.http.post(`/api/proposals/${p.id}/accept`, { signature }, { token: tom.token })).status, 200);
  const told = await notices(ivy.address);
  assert.is(told.length, 1);
  assert.is(told[0]!.type, "ProposalSigned");
  assert.is(told[0]!.key, `ProposalSigned:${p.id}:${tom.address}`);
  assert.equal(await notices(tom.address), []);
  // Delivered to the investor's webhook through the outbox, signed like a vault event's delivery.
  const hit = (await waitUntil(() => ops.hits.find((h) => h.path === "/ivy"), { what: "the ProposalSigned delivery" }))!;
  const delivered = JSON.parse(hit.body);
  assert.is(delivered.event.type, "ProposalSigned");
  assert.equal(
    { proposal: delivered.event.data.proposal, signedBy: delivered.event.data.signedBy, role: delivered.event.data.role, initialBalance: delivered.event.data.initialBalance },
    { proposal: p.id, signedBy: tom.address, role: "trader", initialBalance: "5000" },
  );
  assert.match(delivered.text, `signed proposal #${p.id}`);
  const [t, v1] = String(hit.headers["x-tradevault-signature"]).split(",").map((x) => x.split("=")[1]);
  assert.is(v1, createHmac("sha256", Buffer.from(secret, "utf8")).update(`${t}.${hit.body}`, "utf8").digest("hex"));
  // The investor signs too: the vault deploys, and nobody is asked for anything more.
  const done = await d.http.post(`/api/proposals/${p.id}/accept`, { signature: await signTyped(ivy.wallet, p.typedData) }, { token: ivy.token });
  assert.is(done.status, 200, JSON.stringify(done.body));
  assert.equal(await notices(tom.address), []);
  assert.is((await notices(ivy.address)).length, 1);
  assert.is(ops.hits.filter((h) => h.path === "/ivy").length, 1);
});

test("an agent key expiring within 7 days, then lapsed: one notice each to the investor, and the operator's alert", async () => {
  const setValidUntil = (ms: number) => d.daemon.store.db.updateTable("agents").set({ valid_until: ms }).where("account", "=", c.ivy.address).where("valid_until", "is not", null).execute();
  await setValidUntil(clock() + 3 * 86_400_000 + 60_000);
  await cycle();
  await cycle();
  let told = (await notices(c.ivy.address)).filter((n) => n.type.startsWith("Agent"));
  assert.equal(told.map((n) => n.type), ["AgentExpiring"]);
  assert.is(JSON.parse(told[0]!.data).daysLeft, 4);
  assert.is(JSON.parse(told[0]!.data).vault, c.vault);
  await setValidUntil(clock() - 1000);
  await cycle();
  await cycle();
  told = (await notices(c.ivy.address)).filter((n) => n.type.startsWith("Agent"));
  assert.equal(told.map((n) => n.type), ["AgentExpiring", "AgentLapsed"]);
  await d.daemon.alerts!.tick();
  await waitUntil(() => opsAlerts(ops).some((a) => a.alert.startsWith("agent:") && a.alert.endsWith(":lapsed")), { what: "the lapsed agent's alert" });
});

test("operator gas below the threshold: one alert when it starts, none while it holds or after a restart, one when it clears", async () => {
  await waitUntil(() => sent(ops, "gas", "firing") === 1, { what: "the gas alert" });
  const firing = opsAlerts(ops).find((a) => a.alert === "gas")!;
  assert.is(firing.title, "Operator gas low");
  assert.match(firing.text, d.daemon.chain.operator);
  assert.is(firing.daemon, null, "a shared condition names no daemon");
  // The same alert in Slack's shape.
  const slack = ops.hits.filter((h) => h.path === "/slack").map((h) => JSON.parse(h.body)).find((b) => /Operator gas low/.test(b.text));
  assert.ok(slack && Array.isArray(slack.blocks), JSON.stringify(slack));
  // Checks while the condition holds (each tick is a whole check) send nothing more, before and after a restart.
  await d.daemon.alerts!.tick();
  await d.daemon.alerts!.tick();
  await d.close();
  d = await startTestDaemon({ dataDir: dir.path, clock, startOracle: false, config });
  await d.daemon.alerts!.tick();
  await d.daemon.alerts!.tick();
  assert.is(sent(ops, "gas", "firing"), 1);
  assert.is(sent(ops, "gas", "cleared"), 0);
  await d.daemon.chain.provider.send("anvil_setBalance", [d.daemon.chain.operator, toQuantity(2n * 10n ** 14n * 10n ** 18n)]);
  await d.daemon.alerts!.tick();
  await waitUntil(() => sent(ops, "gas", "cleared") === 1, { what: "the gas alert's clear" });
  await d.daemon.alerts!.tick();
  await d.daemon.alerts!.tick();
  assert.is(sent(ops, "gas", "cleared"), 1);
  assert.is(sent(ops, "gas", "firing"), 1);
});

test("the exchange unreachable from this daemon: one alert naming the daemon, one when it answers again", async () => {
  const faults = simFaults(d.daemon.exchange.url);
  const key = `exchange:${daemonId(dir.path)}`;
  await faults.add({ kind: "http500", endpoint: "info", count: 100_000 });
  try {
    await d.daemon.alerts!.tick();
    await d.daemon.alerts!.tick();
    await waitUntil(() => sent(ops, key, "firing") === 1, { what: "the exchange alert" });
    assert.is(opsAlerts(ops).find((a) => a.alert === key)!.daemon, daemonId(dir.path));
  } finally {
    await faults.clear();
  }
  await d.daemon.alerts!.tick();
  await waitUntil(() => sent(ops, key, "cleared") === 1, { what: "the exchange alert's clear" });
  await d.daemon.alerts!.tick();
  assert.is(sent(ops, key, "firing"), 1);
  assert.is(sent(ops, key, "cleared"), 1);
});

test("the alert sender: a target answering 500 twice gets the alert on the third attempt, once; another target is not held up", async () => {
  const flaky = await receiver();
  const steady = await receiver();
  flaky.answers.push(500, 500);
  const sender = createAlertSender({ targets: [`${flaky.url}/a`, `ntfy:${steady.url}/topic`], log: pino({ level: "silent" }), retryDelaysMs: [50, 50, 50] });
  const alert: OperatorAlert = { key: "gas", state: "firing", title: "Operator gas low", text: "fund it", daemon: null, since: clock(), time: clock() };
  try {
    sender.send(alert);
    await waitUntil(() => steady.hits.length === 1, { what: "the steady target's delivery" });
    assert.is(steady.hits[0]!.body, "fund it");
    assert.is(steady.hits[0]!.headers.title, "Operator gas low");
    await waitUntil(() => flaky.hits.length === 3, { what: "the third attempt" });
    await sender.stop();
    assert.is(flaky.hits.length, 3);
    assert.is(JSON.parse(flaky.hits[2]!.body).alert, "gas");
  } finally {
    await sender.stop();
    for (const r of [flaky, steady]) await new Promise<void>((done) => r.server.close(() => done()));
  }
});

test.after(async () => {
  sse?.close();
  await within(d.close(), 30_000, "the daemon's stop");
  await new Promise<void>((done) => ops.server.close(() => done()));
  dir.remove();
});

test.run();
