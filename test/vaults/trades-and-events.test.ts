// Vault trade pages over HTTP (limits, offsets, hasMore, ISO and Unix-second date filters) and the
// event stream's resume with Last-Event-ID.
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { appendFills } from "../../daemon/db/vault-trades-repo.js";
import { appendDaemonEvent } from "../../daemon/vaults/vault-events.js";
import { createVault, fakeClock, party, startTestDaemon, type Party, type TestDaemon } from "../helpers/daemon.js";
import { openSse } from "../helpers/sse.js";
import { waitUntil, within } from "../helpers/util.js";

const t = suite<{ d: TestDaemon; ivy: Party; tom: Party; vault: string }>("trades and events");
const DAY = 86_400_000;
const T0 = Date.UTC(2026, 10, 1); // 2026-11-01T00:00:00Z

t.before(async (ctx) => {
  ctx.d = await startTestDaemon({ startOracle: false, clock: fakeClock(Date.now(), { realTime: true }) });
  ctx.ivy = await party(ctx.d, { usdc: 10_000 });
  ctx.tom = await party(ctx.d);
  ctx.vault = await createVault(ctx.d, ctx.ivy, ctx.tom);
  // 300 fills, one every 2 hours from 2026-11-01: 12 a day, 25 days.
  const { store } = ctx.d.daemon;
  await store.write((trx) => appendFills(trx, ctx.vault, ctx.ivy.address, Array.from({ length: 300 }, (_, i) => ({
    tid: 10_000 + i, oid: 7, symbol: "ETH", side: i % 2 ? "sell" : "buy", size: "0.5", price: String(3000 + i), pnl: i % 2 ? "1.5" : "0", fee: "0.2", timeMs: T0 + i * 2 * 3600_000,
  }))));
});
t.after(async (ctx) => {
  await ctx.d.close();
});

const page = (ctx: { d: TestDaemon; tom: Party; vault: string }, q: string) => ctx.d.http.get(`/api/vaults/${ctx.vault}/trades${q}`, { token: ctx.tom.token });

t("default limit 100, newest first, hasMore; offsets walk back", async (ctx) => {
  const first = (await page(ctx, "")).body.data;
  assert.is(first.trades.length, 100);
  assert.is(first.total, 300);
  assert.is(first.hasMore, true);
  assert.is(first.trades[0].price, 3299);
  assert.is(first.trades[0].timestamp, (T0 + 299 * 2 * 3600_000) / 1000, "Unix seconds");
  const last = (await page(ctx, "?limit=100&offset=200")).body.data;
  assert.equal([last.trades.length, last.hasMore, last.trades.at(-1).price], [100, false, 3000]);
  const beyond = (await page(ctx, "?offset=1000")).body.data;
  assert.equal([beyond.trades.length, beyond.total, beyond.hasMore], [0, 300, false]);
  assert.is((await page(ctx, "?limit=1000")).body.data.trades.length, 300);
});

t("limit and offset bounds are INVALID_INPUT", async (ctx) => {
  for (const q of ["?limit=0", "?limit=1001", "?limit=abc", "?offset=-1", "?offset=1.5", "?page=2"]) {
    const r = await page(ctx, q);
    assert.is(r.status, 400, q);
    assert.is(r.body.error.code, "INVALID_INPUT", q);
  }
});

t("date filters: ISO dates (whole days), ISO date-times and Unix seconds", async (ctx) => {
  const day = (await page(ctx, "?startDate=2026-11-03&endDate=2026-11-03")).body.data;
  assert.is(day.total, 12);
  assert.ok(day.trades.every((x: any) => x.timestamp >= (T0 + 2 * DAY) / 1000 && x.timestamp < (T0 + 3 * DAY) / 1000));
  const iso = (await page(ctx, "?startDate=2026-11-03T00:00:00Z&endDate=2026-11-03T05:59:59Z")).body.data;
  assert.is(iso.total, 3);
  const secs = (await page(ctx, `?startDate=${(T0 + 2 * DAY) / 1000}&endDate=${(T0 + 3 * DAY) / 1000 - 1}&limit=5`)).body.data;
  assert.equal([secs.total, secs.trades.length, secs.hasMore], [12, 5, true]);
  assert.is((await page(ctx, "?startDate=2027-01-01")).body.data.total, 0);
  const bad = await page(ctx, "?startDate=yesterday");
  assert.is(bad.status, 400);
  assert.is(bad.body.error.details[0].field, "query.startDate");
});

t("a date-time without a zone is UTC, whatever the daemon's time zone", async (ctx) => {
  const utc = (await page(ctx, "?startDate=2026-11-03T00:00:00Z&endDate=2026-11-03T05:59:59Z")).body.data;
  const zone = process.env.TZ;
  process.env.TZ = "Pacific/Honolulu"; // UTC-10 all year: a local reading moves the range by 10 hours
  try {
    assert.is(new Date(2026, 10, 3).getTimezoneOffset(), 600, "the process now reads local time as Honolulu's");
    for (const q of ["?startDate=2026-11-03T00:00:00&endDate=2026-11-03T05:59:59", "?startDate=2026-11-03T00:00&endDate=2026-11-02T19:59:59-10:00"]) {
      const r = (await page(ctx, q)).body.data;
      assert.equal(r.trades.map((x: any) => x.timestamp), utc.trades.map((x: any) => x.timestamp), q);
    }
  } finally {
    if (zone === undefined) delete process.env.TZ;
    else process.env.TZ = zone;
  }
  assert.is(utc.total, 3);
});

t("impossible dates and times are INVALID_INPUT naming the field", async (ctx) => {
  const impossible = ["2026-02-30", "2026-13-01", "2026-00-10", "2026-11-31", "2026-11-31T25:00", "2026-11-30T24:00", "2026-11-30T10:60",
    "2026-11-30T10:00:61Z", "2026-11-30T10:00+24:00", "2026-11-01T", "2026-11-01 10:00", "2026-11-01Tnoon"];
  for (const date of impossible) {
    for (const field of ["startDate", "endDate"]) {
      const r = await page(ctx, `?${field}=${encodeURIComponent(date)}`);
      assert.is(r.status, 400, `${field}=${date}: ${JSON.stringify(r.body.error ?? r.body.data.total)}`);
      assert.is(r.body.error.code, "INVALID_INPUT");
      assert.equal(r.body.error.details.map((x: { field: string }) => x.field), [`query.${field}`], date);
    }
  }
  assert.is((await page(ctx, "?startDate=2028-02-29")).status, 200, "a leap day");
});

t("the event stream resumes after Last-Event-ID without repeating or losing events", async (ctx) => {
  const all = (await ctx.d.http.get(`/api/vaults/${ctx.vault}/events?limit=1000`, { token: ctx.ivy.token })).body.data.events;
  assert.ok(all.length >= 2, "VaultCreated and the first BalanceUpdated");
  const firstId = Math.min(...all.map((e: any) => e.id));
  const s = await openSse(`${ctx.d.url}/api/events`, ctx.ivy.token, firstId);
  await waitUntil(() => s.events.length >= all.length - 1, { what: "the backlog" });
  assert.ok(s.events.every((e) => e.id > firstId));
  assert.is(new Set(s.events.map((e) => e.id)).size, s.events.length, "no duplicates");
  const seen = s.events.length;
  await ctx.d.daemon.oracle.cycle(); // a new BalanceUpdated arrives live
  await waitUntil(() => s.events.length > seen, { what: "a live event" });
  assert.is(s.events.at(-1)!.event, "BalanceUpdated");
  s.close();
});

t("a backlog longer than one page arrives whole, in order", async (ctx) => {
  const { store } = ctx.d.daemon;
  const before = (await ctx.d.http.get(`/api/vaults/${ctx.vault}/events?limit=1`, { token: ctx.ivy.token })).body.data.total;
  await store.write(async (trx) => {
    for (let i = 0; i < 2_500; i++) {
      await appendDaemonEvent(trx, { vault: ctx.vault, type: "BalanceMismatch", time: 1_800_000_000 + i, data: { expected: "10000000000", observed: String(i * 1_000_000) } }, Date.now());
    }
  });
  const s = await openSse(`${ctx.d.url}/api/events`, ctx.ivy.token, 0);
  const total = before + 2_500;
  await waitUntil(() => s.events.length >= total, { what: `all ${total} events`, slowMs: 20_000 });
  const ids = s.events.map((e) => e.id);
  assert.is(ids.length, total);
  assert.ok(ids.every((id, i) => i === 0 || id > ids[i - 1]!), "strictly increasing, no repeats");
  assert.is(s.events.at(-1)!.data.observed, "2499");
  s.close();
});

t("shutdown ends open streams, after delivering the events that came before it", async (ctx) => {
  const s = await openSse(`${ctx.d.url}/api/events`, ctx.tom.token);
  try {
    await ctx.d.daemon.oracle.cycle();
    await waitUntil(() => s.events.some((e) => e.event === "BalanceUpdated"), { what: "a live BalanceUpdated" });
    // Not awaited first: stop() itself cuts every connection after 10 s, which would end the stream anyway.
    const stopping = ctx.d.daemon.stop();
    await within(s.ended, 5_000, "the stream's end at shutdown");
    await stopping;
    assert.ok(s.events.length > 0 && s.events.every((e) => e.data.vault === ctx.vault), JSON.stringify(s.events));
  } finally {
    s.close();
  }
});

t.run();
