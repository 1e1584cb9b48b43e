// GET /metrics on its own port: a real daemon serves real requests, an order, a vault and an oracle
// cycle, and the figures a monitor would graph move accordingly.
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { resolveConfig } from "../../daemon/config.js";
import { startTestDaemon, trader, type TestDaemon } from "../helpers/daemon.js";
import { vaultCase } from "../helpers/vaults.js";
import { waitUntil } from "../helpers/util.js";
import { scrape, val, type Samples } from "./_prom.js";

const t = suite<{ d: TestDaemon }>("metrics");
t.before(async (ctx) => {
  // The oracle loop runs (every second), as in production: its status is what the gauges read.
  ctx.d = await startTestDaemon({ config: { metricsPort: 0, oracleInterval: 1 } });
});
t.after(async (ctx) => {
  await ctx.d.close();
});

const url = (d: TestDaemon) => d.daemon.metricsUrl!;

t("off by default; when on, its own loopback port, apart from the API", async ({ d }) => {
  assert.is(resolveConfig({}).metricsPort, undefined);
  assert.match(url(d), /^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
  assert.is.not(new URL(url(d)).port, new URL(d.url).port);
  assert.is((await d.http.get("/metrics")).status, 404, "the API port does not serve metrics");
  const { contentType, text } = await scrape(url(d));
  assert.match(contentType, /^text\/plain; version=0\.0\.4/);
  assert.match(text, /# TYPE tradevault_http_request_duration_seconds histogram/);
  assert.is((await fetch(url(d).replace(/\/metrics$/, "/other"))).status, 404);
});

t("API requests are counted and timed by route pattern and status", async ({ d }) => {
  const before = (await scrape(url(d))).samples;
  for (let i = 0; i < 3; i++) assert.is((await d.http.get("/healthz")).status, 200);
  const vault = "0x00000000000000000000000000000000000000aa";
  assert.is((await d.http.get(`/api/vaults/${vault}`)).status, 401);
  const after = (await scrape(url(d))).samples;

  const health = 'method="GET",route="/healthz",status="200"';
  assert.is(val(after, `tradevault_http_requests_total{${health}}`) - val(before, `tradevault_http_requests_total{${health}}`), 3);
  assert.is(val(after, `tradevault_http_request_duration_seconds_count{${health}}`) - val(before, `tradevault_http_request_duration_seconds_count{${health}}`), 3);
  assert.ok(val(after, `tradevault_http_request_duration_seconds_sum{${health}}`) > val(before, `tradevault_http_request_duration_seconds_sum{${health}}`));
  assert.is(val(after, 'tradevault_http_requests_total{method="GET",route="/api/vaults/:address",status="401"}'), 1);
  assert.not.ok([...after.keys()].some((k) => k.includes(vault)), "no series per address");
});

t("orders, vaults, chain transactions, oracle and exchange weight move with real work", async ({ d }) => {
  const before = (await scrape(url(d))).samples;
  const { token } = await trader(d);
  const order = await d.http.post("/api/trade", { symbol: "BTC", side: "buy", size: 0.01, price: 50000, tif: "GTC" }, { token });
  assert.is(order.status, 200, JSON.stringify(order.body));
  await vaultCase(d);
  // The next cycles read the new vault and write its balance on-chain. The active-vault gauge moves
  // mid-cycle, so wait for a cycle to have ended well after that: the one before may have met the
  // vault while its account was still being set up.
  const after = await waitUntil(async (): Promise<Samples | false> => {
    const s = (await scrape(url(d))).samples;
    return val(s, "tradevault_oracle_active_vaults") === 1 && val(s, 'tradevault_vaults{state="active"}') === 1 &&
      val(s, "tradevault_oracle_last_cycle_ok") === 1 &&
      val(s, "tradevault_vault_balance_max_age_seconds") < 1e9 && val(s, 'tradevault_chain_transactions{status="confirmed"}') > val(before, 'tradevault_chain_transactions{status="confirmed"}') + 2 && s;
  }, { slowMs: 30_000, what: "an oracle cycle over the new vault" }) as Samples;

  assert.is(val(after, 'tradevault_orders{status="resting"}') - val(before, 'tradevault_orders{status="resting"}'), 1);
  assert.is(val(after, 'tradevault_vaults{state="active"}'), 1);
  assert.is(val(after, 'tradevault_vaults{state="closed"}'), 0);
  // Each creation is a mined operator transaction, seen by the journal and by the confirmation hook;
  // then the oracle's balance write adds one more.
  const confirmed = val(after, 'tradevault_chain_transactions{status="confirmed"}') - val(before, 'tradevault_chain_transactions{status="confirmed"}');
  const observed = val(after, 'tradevault_chain_confirmation_seconds_count{status="confirmed"}') - val(before, 'tradevault_chain_confirmation_seconds_count{status="confirmed"}');
  assert.ok(confirmed >= 2, `confirmed transactions: ${confirmed}`);
  assert.is(observed, confirmed, "every mined transaction was timed");
  assert.is(val(after, "tradevault_oracle_last_cycle_ok"), 1);
  assert.is(val(after, "tradevault_oracle_active_vaults"), 1);
  assert.is(val(after, "tradevault_oracle_lag_seconds"), 0, "the daemon's clock is frozen: the cycle just succeeded");
  assert.ok(after.has("tradevault_oracle_last_cycle_duration_seconds"), "the daemon's clock is frozen, so the figure is 0, but present");
  const spent = val(after, "tradevault_exchange_weight_spent_total") - val(before, "tradevault_exchange_weight_spent_total");
  assert.ok(spent >= 2 * 4, `weight spent by an order, an agent approval, a vault's reads: ${spent}`);
  assert.ok(val(after, "tradevault_exchange_weight_last_minute") >= spent);
  assert.ok(val(after, "tradevault_operator_balance_ether") > 0);
  assert.ok(val(after, "process_resident_memory_bytes") > 10e6);
  assert.ok(val(after, "nodejs_heap_size_used_bytes") > 0);
});

t.run();
