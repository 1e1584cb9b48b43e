// A webhook delivery survives a SIGKILL: the built `tradevaultd` (embedded sim and chain,
// --webhooks-allow-private) stores a VaultCreated event and its outbox row together, starts sending
// it to an endpoint that does not answer, and is killed mid-send. Started again on the same data
// directory, it sends the event again, with the same X-Tradevault-Delivery id (at least once: the
// receiver saw the first attempt, and drops the repeat by that id), and records it delivered.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { httpClient } from "../helpers/daemon.js";
import { tempDir, waitUntil } from "../helpers/util.js";
import { startReceiver, verifySignature, type Receiver } from "../alerts/_receiver.js";
import { startDaemonProcess, type DaemonProcess } from "./_daemon-process.js";
import { partyOver, vaultOver } from "./_daemon-user.js";

const tmp = tempDir("tradevault-webhook-restart-");
let d: DaemonProcess | undefined;
let rx: Receiver | undefined;

test.after(async () => {
  await d?.kill();
  await rx?.stop();
  if (!process.env.TEST_KEEP_DATA) tmp.remove();
});

test("an event stored, its delivery cut by SIGKILL: after the restart it is delivered, under the same delivery id", async () => {
  rx = await startReceiver();
  d = await startDaemonProcess(tmp.path, ["--webhooks-allow-private"]);
  let http = httpClient(d.url);
  const ivy = await partyOver(http, { usdc: "10000", agent: true });
  const tom = await partyOver(http);
  const hook = await http.post("/api/webhooks", { url: rx.url("/crash", { hang: true }), events: ["VaultCreated"] }, { token: ivy.token });
  assert.is(hook.status, 200, JSON.stringify(hook.body));
  const { id, secret } = hook.body.data.webhook;
  await vaultOver(http, ivy, tom);
  await waitUntil(() => rx!.at("/crash").length === 1, { slowMs: 30_000, what: "the first attempt, left unanswered" });
  await d.kill();

  rx.url("/crash", { statuses: [200] });
  d = await startDaemonProcess(tmp.path, ["--webhooks-allow-private"]);
  http = httpClient(d.url);
  const [first, again] = (await waitUntil(() => (rx!.at("/crash").length >= 2 ? rx!.at("/crash") : undefined), {
    slowMs: 30_000, what: "the delivery after the restart",
  }))!;
  assert.is(again!.headers["x-tradevault-delivery"], first!.headers["x-tradevault-delivery"]);
  assert.is(JSON.parse(again!.body).event.type, "VaultCreated");
  assert.ok(verifySignature(secret, again!.headers["x-tradevault-signature"] as string, again!.body));
  const row = await waitUntil(async () => {
    const r = await http.get(`/api/webhooks/${id}/deliveries`, { token: ivy.token });
    return r.body.data?.deliveries?.[0]?.status === "delivered" && r.body.data.deliveries;
  }, { slowMs: 10_000, what: "the delivery recorded" });
  assert.is(row.length, 1);
  assert.is(row[0].attempts, 1, "the killed attempt left no record; the one after the restart did");
});

test.run();
