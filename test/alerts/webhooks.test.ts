// Users' webhooks end to end: a real daemon (embedded sim and chain, --webhooks-allow-private) and
// real HTTP receivers on 127.0.0.1. One daemon for the file; each test builds its own parties and
// vaults. The test that moves the daemon's clock by a day runs last.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { afterAttempt, DISABLE_AFTER_MS, RETRY_DELAYS_MS } from "../../daemon/webhooks/retry-policy.js";
import { createVault, party, signIn, startTestDaemon, type Party, type TestDaemon } from "../helpers/daemon.js";
import { runCli, seedWallet } from "../helpers/cli.js";
import { tempDir, waitUntil } from "../helpers/util.js";
import { breach, startVaultDaemon, vaultCase } from "../helpers/vaults.js";
import { startReceiver, verifySignature, type Receiver } from "./_receiver.js";

let d: TestDaemon;
let rx: Receiver;

test.before(async () => {
  [d, rx] = await Promise.all([startVaultDaemon({ webhooksAllowPrivate: true }), startReceiver()]);
});
test.after(async () => {
  await rx?.stop();
  await d?.close();
});

const register = async (who: Party, body: Record<string, unknown>) => {
  const r = await d.http.post("/api/webhooks", body, { token: who.token });
  assert.is(r.status, 200, JSON.stringify(r.body));
  return r.body.data.webhook as { id: string; secret: string; url: string; events: string[]; enabled: boolean };
};
const deliveries = async (who: Party, id: string) => {
  const r = await d.http.get(`/api/webhooks/${id}/deliveries`, { token: who.token });
  assert.is(r.status, 200, JSON.stringify(r.body));
  return r.body.data.deliveries as Array<{ eventType: string; attempts: number; status: string; statusCode: number | null; id: string }>;
};
const listed = async (who: Party) => (await d.http.get("/api/webhooks", { token: who.token })).body.data.webhooks as Array<Record<string, any>>;
const typeOf = (body: string) => JSON.parse(body).event.type as string;
const firstAt = (path: string, what: string) => waitUntil(() => rx.at(path)[0], { what });

test("afterAttempt: 10 s, 1 min, 10 min, 1 h, 6 h, then failed; a 2xx ends; a 410 is gone; a failing day disables", () => {
  const fail = { status: 500, latencyMs: 3, error: "answered 500" };
  const waits = RETRY_DELAYS_MS.map((_, i) => {
    const s = afterAttempt({ attempts: i + 1, result: fail, now: 1_000, failingSince: 1_000 });
    assert.is(s.kind, "retry");
    return s.kind === "retry" ? s.outcome.nextAttemptAt - 1_000 : 0;
  });
  assert.equal(waits, [10_000, 60_000, 600_000, 3_600_000, 21_600_000]);
  assert.is(afterAttempt({ attempts: 6, result: fail, now: 1_000, failingSince: 1_000 }).kind, "failed");
  const ok = afterAttempt({ attempts: 2, result: { status: 204, latencyMs: 1 }, now: 5, failingSince: null });
  assert.is(ok.kind, "delivered");
  assert.is(afterAttempt({ attempts: 1, result: { status: 410, latencyMs: 1 }, now: 5, failingSince: 5 }).kind, "gone");
  const day = afterAttempt({ attempts: 2, result: fail, now: DISABLE_AFTER_MS, failingSince: 0 });
  assert.ok(day.kind === "failed" && /24 hours/.test(day.disable ?? ""), JSON.stringify(day));
  assert.is(afterAttempt({ attempts: 2, result: fail, now: DISABLE_AFTER_MS - 1, failingSince: 0 }).kind, "retry");
});

test("registration: bad input is 400 with details; another user's webhook is 404 on every route; a Telegram token is redacted", async () => {
  const [ivy, eve] = await Promise.all([party(d), party(d)]);
  for (const [body, field] of [
    [{ url: "ftp://x.example/" }, "body.url"], [{ url: rx.url("/a"), format: "email" }, "body.format"],
    [{ url: rx.url("/a"), events: ["Nope"] }, "body.events.0"], [{ url: rx.url("/a"), vaults: ["0x12"] }, "body.vaults.0"],
    [{ url: rx.url("/a"), vaults: [eve.address] }, "body.vaults.0"], [{ url: `${rx.base}/tg/bot1:x/sendMessage`, format: "telegram" }, "body.url"],
  ] as const) {
    const r = await d.http.post("/api/webhooks", body, { token: ivy.token });
    assert.is(r.status, 400, JSON.stringify(body));
    assert.is(r.body.error.code, "INVALID_INPUT");
    assert.is(r.body.error.details[0].field, field, JSON.stringify(r.body));
  }
  const tg = await register(ivy, { url: `${rx.base}/tg/bot123:SECRET/sendMessage?chat_id=42`, format: "telegram" });
  assert.not.match(tg.url, /SECRET/);
  assert.ok(tg.secret.startsWith("whsec_"));
  const [mine] = await listed(ivy);
  assert.is(mine!.id, tg.id);
  assert.not.match(JSON.stringify(mine), /SECRET|whsec_/);
  assert.ok(mine!.events.includes("Paused") && !mine!.events.includes("BalanceUpdated"));
  for (const [method, path] of [["DELETE", ""], ["POST", "/test"], ["GET", "/deliveries"]] as const) {
    const r = await d.http.request(method, `/api/webhooks/${tg.id}${path}`, undefined, { token: eve.token });
    assert.is(r.status, 404, `${method} ${path}: ${JSON.stringify(r.body)}`);
  }
  assert.equal(await listed(eve), []);
  assert.is((await listed(ivy)).length, 1, "still there after the stranger's DELETE");
  for (let i = 1; i < 20; i++) await register(ivy, { url: rx.url(`/cap${i}`) });
  const over = await d.http.post("/api/webhooks", { url: rx.url("/cap20") }, { token: ivy.token });
  assert.is(over.status, 409, JSON.stringify(over.body));
});

test("a breach reaches a json receiver within 2 s of the Paused event, signed as docs/alerts.md says, once; chat formats tell it in words", async () => {
  const c = await vaultCase(d);
  const json = await register(c.ivy, { url: rx.url("/breach/json") });
  for (const f of ["slack", "discord", "ntfy"]) await register(c.tom, { url: rx.url(`/breach/${f}`), format: f, events: ["Paused"] });
  await register(c.tom, { url: rx.url("/breach/telegram/bot9:T/sendMessage") + "?chat_id=-42", format: "telegram", events: ["Paused"] });
  await breach(c);
  await waitUntil(async () => (await d.http.get(`/api/vaults/${c.vault}/events?limit=1000`, { token: c.ivy.token })).body.data.events
    .some((e: { type: string }) => e.type === "Paused"), { what: "the Paused event stored" });
  const paused = (await waitUntil(() => rx.at("/breach/json").find((r) => typeOf(r.body) === "Paused"), { slowMs: 2_000, what: "the Paused delivery" }))!;
  const body = JSON.parse(paused.body);
  assert.ok(verifySignature(json.secret, paused.headers["x-tradevault-signature"] as string, paused.body), "signature checks");
  assert.not.ok(verifySignature(json.secret, paused.headers["x-tradevault-signature"] as string, paused.body.replace("Paused", "Unpaused")));
  assert.not.ok(verifySignature("whsec_other", paused.headers["x-tradevault-signature"] as string, paused.body));
  assert.is(paused.headers["x-tradevault-delivery"], body.deliveryId);
  assert.is(body.vault, c.vault);
  assert.is(body.event.vault, c.vault);
  assert.is(body.eventId, body.event.id);
  assert.is(paused.headers.authorization, undefined);
  assert.is(paused.headers.cookie, undefined);
  const rows = (await deliveries(c.ivy, json.id)).filter((r) => r.eventType === "Paused");
  assert.is(rows.length, 1);
  // Its readings' outbox rows were written with them, before the Paused event: none, for a webhook that names no events.
  assert.not.ok((await deliveries(c.ivy, json.id)).some((r) => r.eventType === "BalanceUpdated"), "a webhook that names no events is not sent every reading");
  await waitUntil(async () => (await deliveries(c.ivy, json.id)).find((r) => r.eventType === "Paused")?.status === "delivered", { what: "recorded" });

  const slack = await firstAt("/breach/slack", "the Slack message");
  const s = JSON.parse(slack.body);
  assert.match(s.text, /daily drawdown \d+(\.\d+)?% \(limit 5%\)/);
  assert.is(s.blocks[1].type, "section");
  const discord = await firstAt("/breach/discord", "the Discord message");
  const dc = JSON.parse(discord.body);
  assert.match(dc.content, /paused/);
  assert.match(dc.embeds[0].description, /limit 5%/);
  const tg = await firstAt("/breach/telegram/bot9:T/sendMessage", "the Telegram message");
  assert.equal(Object.keys(JSON.parse(tg.body)).sort(), ["chat_id", "text"]);
  assert.is(JSON.parse(tg.body).chat_id, "-42");
  const ntfy = await firstAt("/breach/ntfy", "the ntfy message");
  assert.match(ntfy.headers["content-type"] as string, /^text\/plain/);
  assert.match(ntfy.headers.title as string, /Paused/);
  assert.match(ntfy.body, /paused: daily drawdown/);
  assert.is(slack.headers["x-tradevault-signature"], undefined, "chat formats are not signed");
});

test("a receiver that hangs delays neither another webhook nor the oracle", async () => {
  const [ivy, tom] = await Promise.all([party(d, { usdc: 10_000, agent: true }), party(d)]);
  const hang = await register(ivy, { url: rx.url("/hang/a", { hang: true }), events: ["VaultCreated"] });
  await register(ivy, { url: rx.url("/hang/b"), events: ["VaultCreated"] });
  await createVault(d, ivy, tom);
  await waitUntil(() => rx.at("/hang/a").length === 1, { what: "the hanging endpoint reached" });
  await waitUntil(() => rx.at("/hang/b").length === 1, { slowMs: 2_000, what: "the other endpoint served while the first hangs" });
  assert.is(rx.heldOpen(), 1);
  await d.daemon.oracle.cycle();
  assert.is(rx.heldOpen(), 1, "the oracle's cycle ended while the endpoint still hung (deliveries wait up to 10 s)");
  assert.is((await d.http.del(`/api/webhooks/${hang.id}`, { token: ivy.token })).status, 200);
});

test("POST /test answers what the endpoint replied; a redirect to a private address is not followed", async () => {
  const ivy = await party(d);
  const ok = await register(ivy, { url: rx.url("/t/ok") });
  const r = await d.http.post(`/api/webhooks/${ok.id}/test`, undefined, { token: ivy.token });
  assert.is(r.status, 200, JSON.stringify(r.body));
  assert.equal({ ...r.body.data.result, latencyMs: 0 }, { deliveryId: r.body.data.result.deliveryId, ok: true, statusCode: 200, latencyMs: 0, error: null, reply: "ok" });
  const [sent] = rx.at("/t/ok");
  assert.ok(verifySignature(ok.secret, sent.headers["x-tradevault-signature"] as string, sent.body));
  const moved = await register(ivy, { url: rx.url("/t/moved", { redirect: rx.url("/t/inside") }) });
  const m = await d.http.post(`/api/webhooks/${moved.id}/test`, undefined, { token: ivy.token });
  assert.is(m.body.data.result.statusCode, 302);
  assert.is(m.body.data.result.ok, false);
  assert.match(m.body.data.result.error, /redirect.*not followed/);
  assert.equal(rx.at("/t/inside"), []);
});

test("the CLI: webhooks add, list, test, deliveries, remove; bad input is a usage error or the API's", async () => {
  const home = tempDir("tv-hooks-");
  try {
    const cli = (...args: string[]) => runCli(args, { TRADEVAULT_HOME: home.path, TRADEVAULT_URL: d.url, TRADEVAULT_PASSWORD: "pw" });
    await seedWallet(home.path, "me", "pw");
    assert.is((await cli("login")).code, 0);
    const added = await cli("webhooks", "add", rx.url("/cli"), "--format", "discord", "--events", "Paused,Closed", "--json");
    assert.is(added.code, 0, added.stderr);
    const { id, secret } = added.json.data.webhook;
    assert.ok(secret.startsWith("whsec_"));
    assert.match((await cli("webhooks", "add", rx.url("/cli"))).stdout, /shown only now/);
    assert.match((await cli("webhooks", "list")).stdout, new RegExp(`${id}\\s+discord\\s+yes\\s+2`));
    const tried = await cli("webhooks", "test", id);
    assert.is(tried.code, 0, tried.stderr);
    assert.match(tried.stdout, /delivered:\s+yes/);
    assert.is(JSON.parse(rx.at("/cli")[0]!.body).embeds[0].title, "Webhook test");
    assert.match((await cli("webhooks", "deliveries", id)).stdout, /No deliveries yet/);
    assert.is((await cli("webhooks", "add", rx.url("/cli"), "--format", "email")).code, 2);
    assert.is((await cli("webhooks", "remove", "nope")).code, 2);
    const refused = await cli("webhooks", "add", "ftp://x.example/");
    assert.is(refused.code, 1);
    assert.match(refused.stderr, /http or https/);
    assert.is((await cli("webhooks", "remove", id)).code, 0);
    assert.is((await cli("webhooks", "remove", id)).code, 1, "gone: the API's 404");
  } finally {
    home.remove();
  }
});

test("a private URL is refused with 400 without --webhooks-allow-private", async () => {
  const plain = await startTestDaemon();
  try {
    const wallet = (await party(plain)).wallet;
    const { token } = await signIn(plain.http, wallet);
    for (const url of [rx.url("/private"), "http://10.0.0.7/hook", "http://[::ffff:127.0.0.1]:80/", "http://169.254.169.254/latest", "http://localhost:9/"]) {
      const r = await plain.http.post("/api/webhooks", { url }, { token });
      assert.is(r.status, 400, url);
      assert.is(r.body.error.details[0].field, "body.url");
    }
  } finally {
    await plain.close();
  }
});

test("500 twice: the third attempt delivers, once; a 410 removes the webhook; a webhook failing for a day is disabled and says so", async () => {
  const [ivy, tom] = await Promise.all([party(d, { usdc: 10_000, agent: true }), party(d)]);
  const only = { events: ["VaultCreated"] };
  const flaky = await register(ivy, { url: rx.url("/r/flaky", { statuses: [500, 500, 200] }), ...only });
  const gone = await register(ivy, { url: rx.url("/r/gone", { statuses: [410] }), ...only });
  const dead = await register(ivy, { url: rx.url("/r/dead", { statuses: [500] }), ...only });
  await createVault(d, ivy, tom);
  const attempted = (id: string, n: number) => waitUntil(async () => (await deliveries(ivy, id))[0]?.attempts === n, { what: `attempt ${n} of ${id} recorded` });
  await attempted(flaky.id, 1);
  await attempted(dead.id, 1);
  await waitUntil(async () => !(await listed(ivy)).some((w) => w.id === gone.id), { what: "the 410 webhook removed" });
  d.clock.advance(RETRY_DELAYS_MS[0]);
  await attempted(flaky.id, 2);
  d.clock.advance(RETRY_DELAYS_MS[1]);
  await attempted(flaky.id, 3);
  const [row] = await deliveries(ivy, flaky.id);
  assert.equal([row!.status, row!.statusCode], ["delivered", 200]);
  const sent = rx.at("/r/flaky");
  assert.is(sent.length, 3);
  assert.is(new Set(sent.map((s) => s.headers["x-tradevault-delivery"])).size, 1, "one delivery id for every attempt");
  assert.is(rx.at("/r/gone").length, 1);

  await attempted(dead.id, 3);
  d.clock.advance(DISABLE_AFTER_MS);
  const fresh = { ...ivy, token: (await signIn(d.http, ivy.wallet)).token }; // a day later the session has lapsed
  const off = (await waitUntil(async () => (await listed(fresh)).find((w) => w.id === dead.id && !w.enabled), { what: "the dead webhook disabled" }))!;
  assert.match(off.disabledReason, /24 hours/);
  assert.is((await deliveries(fresh, dead.id))[0]!.status, "failed");
  assert.is((await listed(fresh)).find((w) => w.id === flaky.id)!.enabled, true);
});

test.run();
