// A breach the daemon could not act on before it was killed is acted on after the restart: the built
// `tradevaultd` (embedded sim and chain) pauses a `flatten` vault while its exchange refuses every
// action (the sim's POST /sim/faults), is SIGKILLed while the vault is out of policy, and started again
// on the same data directory. The vault then holds its policy (no order, no position), with one
// Flattened event, and the close order sent before the kill (its outcome in doubt) was settled by its
// cloid, never signed again blindly.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { httpClient } from "../helpers/daemon.js";
import type { HttpClient } from "../helpers/daemon.js";
import { simFaults } from "../helpers/sim-faults.js";
import { tempDir, waitUntil } from "../helpers/util.js";
import { startDaemonProcess } from "./_daemon-process.js";
import type { DaemonProcess } from "./_daemon-process.js";
import { partyOver, vaultOver } from "./_daemon-user.js";
import type { Party } from "./_daemon-user.js";

const tmp = tempDir("tradevault-enforcement-restart-");
let d: DaemonProcess | undefined;

test.after(async () => {
  await d?.kill();
  if (!process.env.TEST_KEEP_DATA) tmp.remove();
});

const simUrl = async (http: HttpClient) => (await http.get("/healthz")).body.data.exchange.url as string;
const simPrice = async (sim: string, symbol: string, price: string) => {
  const r = await fetch(new URL("/sim/price", sim), { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ symbol, price }) });
  assert.is(r.status, 200, await r.text());
};
const detail = async (http: HttpClient, who: Party, vault: string) => {
  const r = await http.get(`/api/vaults/${vault}`, { token: who.token });
  assert.is(r.status, 200, JSON.stringify(r.body));
  return r.body.data.vault;
};

test("a flatten vault paused while the exchange refused, then SIGKILL: after the restart it holds its policy", async () => {
  d = await startDaemonProcess(tmp.path);
  let http = httpClient(d.url);
  let sim = await simUrl(http);
  const ivy = await partyOver(http, { usdc: "10000", agent: true });
  const tom = await partyOver(http);
  const vault = await vaultOver(http, ivy, tom, { maxDrawdown: 10, dailyDrawdown: 5, breachPolicy: "flatten" });
  await simPrice(sim, "BTC", "60000");
  await waitUntil(async () => (await detail(http, tom, vault)).lastBalanceUpdate !== null, { slowMs: 30_000, what: "the first reading" });
  for (const body of [{ size: 0.1 }, { size: 0.01, price: 40000 }]) {
    const r = await http.post("/api/trade", { symbol: "BTC", side: "buy", vaultAddress: vault, ...body }, { token: tom.token });
    assert.is(r.status, 200, JSON.stringify(r.body));
  }

  await simFaults(sim).add({ kind: "http500", endpoint: "exchange", count: 100_000 });
  await simPrice(sim, "BTC", "53000");
  const out = await waitUntil(async () => {
    const v = await detail(http, tom, vault);
    return v.paused && v.enforcement?.state !== "holds" && v.enforcement?.attempts >= 1 && v;
  }, { slowMs: 60_000, what: "the vault paused and out of policy" });
  assert.is(out.positions.length, 1, "the exchange refused: the position is still open");
  await d.kill();

  d = await startDaemonProcess(tmp.path);
  http = httpClient(d.url);
  sim = await simUrl(http); // a new embedded sim on its persisted state: no fault any more
  const held = await waitUntil(async () => {
    const v = await detail(http, tom, vault);
    return v.enforcement?.state === "holds" && v;
  }, { slowMs: 60_000, what: "the vault to hold its policy after the restart" });
  assert.equal(held.positions, [], "flattened after the restart");
  const orders = await http.get(`/api/orders?vaultAddress=${vault}`, { token: tom.token });
  assert.equal(orders.body.data.orders, []);
  const events = (await http.get(`/api/vaults/${vault}/events?limit=1000`, { token: ivy.token })).body.data.events as Array<{ type: string; data: any }>;
  const flat = events.filter((e) => e.type === "Flattened");
  assert.is(flat.length, 1, events.map((e) => e.type).join());
  assert.is(flat[0]!.data.positions.length, 1);
  assert.is(flat[0]!.data.positions[0].size, "0.1");
  assert.ok(flat[0]!.data.attempts >= 2, JSON.stringify(flat[0]!.data));
});

test.run();
