// A vault's position the exchange closed by force becomes an event (docs/vaults.md "Liquidations and
// auto-deleveraging"): a liquidation by a price move is one Liquidated event with its figures, in the
// vault's events, on the stream and at the investor's webhook; the sim's /sim/adl is one Deleveraged
// event; the liquidation's ledger record is no transfer (the reading is the account's value); and a
// daemon restarted on the same data directory records neither again.
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { narrator } from "../../daemon/events/describe-event.js";
import { parseDecimal } from "../../daemon/lib/decimal.js";
import { fakeClock, startTestDaemon, type Party, type TestDaemon } from "../helpers/daemon.js";
import { openSse } from "../helpers/sse.js";
import { tempDir, waitUntil } from "../helpers/util.js";
import { longBtc, setPrice, vaultCase, vaultDetail, vaultTrade, type VaultCase } from "../helpers/vaults.js";
import { startReceiver, type Receiver } from "../alerts/_receiver.js";

const t = suite<{ d: TestDaemon; rx: Receiver; dir: ReturnType<typeof tempDir>; cases: VaultCase[] }>("forced fills");
const clock = fakeClock(Date.now(), { realTime: true });
const start = (dataDir: string) => startTestDaemon({ startOracle: false, clock, dataDir, config: { webhooksAllowPrivate: true } });

t.before(async (ctx) => {
  ctx.dir = tempDir();
  ctx.cases = [];
  [ctx.d, ctx.rx] = await Promise.all([start(ctx.dir.path), startReceiver()]);
});
t.after(async (ctx) => {
  await ctx.rx.stop();
  await ctx.d.close();
  ctx.dir.remove();
});

type Event = { id: number; type: string; data: any };
const eventsOf = async (c: VaultCase, type?: string): Promise<Event[]> =>
  ((await c.d.http.get(`/api/vaults/${c.vault}/events?limit=1000`, { token: c.ivy.token })).body.data.events as Event[])
    .filter((e) => type === undefined || e.type === type);
const simPost = async (d: TestDaemon, path: string, body: unknown) => {
  const r = await fetch(`${d.daemon.sim!.url}${path}`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  return { status: r.status, json: (await r.json()) as any };
};
const hookFor = async (d: TestDaemon, rx: Receiver, who: Party, path: string, events: string[]) => {
  const r = await d.http.post("/api/webhooks", { url: rx.url(path), format: "json", events }, { token: who.token });
  assert.is(r.status, 200, JSON.stringify(r.body));
};
/** What the fill cost, from its own Fill event: fee - pnl, exact. */
const lossOf = (fill: Event) => parseDecimal(fill.data.fee, 6) - parseDecimal(fill.data.pnl, 6);

t("a vault's position liquidated by a price move: one Liquidated event, listed, streamed and delivered", async (ctx) => {
  const { d, rx } = ctx;
  const c = await vaultCase(d);
  ctx.cases.push(c);
  await hookFor(d, rx, c.ivy, "/ivy-liquidated", ["Liquidated"]);
  const stream = await openSse(`${d.url}/api/events`, c.ivy.token);
  setPrice(d, "BTC", "60000");
  const trade = await vaultTrade(c, c.tom, { size: 3 }); // 180 000 of BTC on 10 000
  assert.is(trade.status, 200, JSON.stringify(trade.body));
  const [pos] = (await d.http.get(`/api/positions?vaultAddress=${c.vault}`, { token: c.tom.token })).body.data.positions;
  const px = String(Math.floor(pos.liquidationPrice) - 100);
  assert.equal(setPrice(d, "BTC", px).liquidated, [c.ivy.address.toLowerCase()]);
  await d.daemon.oracle.cycle();

  const [liq, ...more] = (await waitUntil(async () => {
    const found = await eventsOf(c, "Liquidated");
    return found.length > 0 ? found : undefined;
  }, { what: "the Liquidated event" }))!;
  assert.equal(more, [], "one liquidation, one event");
  const fill = (await eventsOf(c, "Fill")).find((f) => f.data.tradeId === liq!.data.tradeId)!;
  assert.ok(fill, "the Liquidated event names the trade its Fill event names");
  const { loss, ...figures } = liq!.data;
  assert.equal(figures, { tradeId: fill.data.tradeId, symbol: "BTC", side: "sell", size: "3", price: px, markPrice: px });
  assert.is(parseDecimal(loss, 6), lossOf(fill));
  assert.ok(parseDecimal(loss, 6) > 5_000_000_000n, `most of the 10 000 lost: ${loss}`);
  assert.equal(await eventsOf(c, "Deleveraged"), []);
  // In words, as the CLI's `vaults events` and the dashboard's event list tell it (the one describer).
  const { sentence } = narrator()(liq as any, await vaultDetail(c));
  assert.match(sentence, /^Vault 0x\w{4}…\w{4}: the exchange liquidated 3 BTC at [\d,]+ \(mark [\d,]+\), a loss of [\d,]+\.\d+ USDC$/);

  // The liquidation's ledger record moved no money in or out: the reading is the account's value.
  const account = await simPost(d, "/info", { type: "clearinghouseState", user: c.ivy.address });
  assert.is(parseDecimal((await vaultDetail(c)).currentBalance, 6), parseDecimal(account.json.marginSummary.accountValue, 6));

  const live = (await waitUntil(() => stream.events.find((e) => e.event === "Liquidated"), { what: "the streamed Liquidated" }))!;
  const { id, vault, type, time: _, ...payload } = live.data;
  assert.equal([live.id, id, vault, type, payload], [liq!.id, liq!.id, c.vault, "Liquidated", liq!.data]);
  stream.close();
  const hit = await waitUntil(() => rx.at("/ivy-liquidated")[0], { what: "the webhook delivery" });
  const delivered = JSON.parse(hit.body);
  assert.equal([delivered.event.type, delivered.event.data.tradeId], ["Liquidated", liq!.data.tradeId]);
  assert.match(delivered.text, `the exchange liquidated 3 BTC at`);
});

t("the sim's /sim/adl against a vault's position: one Deleveraged event, at the mark, a gain", async (ctx) => {
  const { d } = ctx;
  const c = await vaultCase(d);
  ctx.cases.push(c);
  await longBtc(c);
  setPrice(d, "BTC", "62000");
  const adl = await simPost(d, "/sim/adl", { user: c.ivy.address, symbol: "BTC" });
  assert.is(adl.status, 200, JSON.stringify(adl.json));
  await d.daemon.oracle.cycle();
  const [del, ...more] = (await waitUntil(async () => {
    const found = await eventsOf(c, "Deleveraged");
    return found.length > 0 ? found : undefined;
  }, { what: "the Deleveraged event" }))!;
  assert.equal(more, []);
  const fill = (await eventsOf(c, "Fill")).find((f) => f.data.tradeId === del!.data.tradeId)!;
  const { loss, tradeId: _, ...figures } = del!.data;
  assert.equal(figures, { symbol: "BTC", side: "sell", size: "0.1", price: "62000", markPrice: "62000" });
  assert.is(parseDecimal(loss, 6), lossOf(fill));
  assert.ok(parseDecimal(loss, 6) < 0n, `a gain, not a loss: ${loss}`);
  assert.equal(await eventsOf(c, "Liquidated"), []);
});

t("a restarted daemon on the same data directory reads the fills again and records nothing twice", async (ctx) => {
  const before = await Promise.all(ctx.cases.map((c) => eventsOf(c)));
  await ctx.d.close(); // the data directory is this file's, so it stays
  ctx.d = await start(ctx.dir.path);
  for (const c of ctx.cases) c.d = ctx.d;
  // The new daemon has read nobody's fills yet: its first cycle reads every vault's from its last trade.
  const reads = ctx.d.daemon.sim!.requests.length;
  await ctx.d.daemon.oracle.cycle();
  assert.ok(ctx.d.daemon.sim!.requests.slice(reads).some((r) => (r.body as any)?.type === "userFillsByTime"), "the fills were read again");
  for (const [i, c] of ctx.cases.entries()) {
    const after = (await eventsOf(c)).filter((e) => e.type === "Fill" || e.type === "Liquidated" || e.type === "Deleveraged");
    assert.equal(after, before[i]!.filter((e) => e.type === "Fill" || e.type === "Liquidated" || e.type === "Deleveraged"));
  }
});

t.run();
