// Trades and events as CSV: only when asked explicitly (Accept or ?format=csv), with a header row,
// ISO 8601 UTC times, exact decimals, the date filters, every row without `limit`; errors before the
// first byte keep the JSON envelope. Then 100,000 trades streamed: the live heap, sampled after a
// forced collection while the CSV is read, must stay far below what the rows take when held at once.
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { request } from "node:http";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { getAddress } from "ethers";
import { appendFills, type NewFill } from "../../daemon/db/vault-trades-repo.js";
import { findVault, insertEvent, insertVault } from "../../daemon/db/vaults-repo.js";
import { party, startTestDaemon, type Party, type TestDaemon } from "../helpers/daemon.js";
import { randomAddress, randomHash, vaultRow } from "../helpers/rows.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

const t = suite<{ d: TestDaemon; ivy: Party; eve: Party; vault: string; big: string }>("exports");
const T0 = Date.UTC(2026, 10, 1); // 2026-11-01T00:00:00Z
const HOUR = 3_600_000;
const fill = (i: number, timeMs: number): NewFill => ({
  tid: 1_000_000 + i, oid: 1, symbol: "ETH", side: i % 2 ? "sell" : "buy", size: "0.0123", price: `3000.${i % 10}5`, pnl: i % 2 ? "-1.25" : "0", fee: "0.012345", timeMs,
});

async function vaultOf(d: TestDaemon, investor: string, fills: NewFill[], events: number): Promise<string> {
  const row = { ...vaultRow(getAddress(randomAddress())), investor };
  await d.daemon.store.write(async (trx) => {
    await insertVault(trx, row);
    const v = (await findVault(trx, row.address))!;
    for (let i = 0; i < events; i++) {
      await insertEvent(trx, v, {
        type: i === 0 ? "VaultCreated" : "Paused", txHash: randomHash(), logIndex: 0, blockNumber: 10 + i, time: (T0 + i * 12 * HOUR) / 1000,
        data: i === 0 ? { note: 'say "hi", twice' } : { reason: 1, maxDrawdown: true, dailyDrawdown: false },
      });
    }
  });
  for (let i = 0; i < fills.length; i += 10_000) await d.daemon.store.write((trx) => appendFills(trx, row.address, row.exchange_account, fills.slice(i, i + 10_000)));
  return row.address;
}

t.before(async (ctx) => {
  ctx.d = await startTestDaemon({ startOracle: false });
  [ctx.ivy, ctx.eve] = [await party(ctx.d), await party(ctx.d)];
  // 150 fills, one an hour from 2026-11-01 (more than the JSON page's default of 100); 4 events, 12 h apart.
  ctx.vault = await vaultOf(ctx.d, ctx.ivy.address, Array.from({ length: 150 }, (_, i) => fill(i, T0 + i * HOUR)), 4);
});
t.after(async (ctx) => {
  await ctx.d.close();
});

/** GET with exactly these headers (fetch would add Accept: *\/*): status, content type, body text. */
function get(ctx: { d: TestDaemon; ivy: Party }, path: string, headers: Record<string, string> = {}, token = ctx.ivy.token) {
  return new Promise<{ status: number; type: string; text: string }>((resolve, reject) => {
    const req = request(`${ctx.d.url}${path}`, { headers: { Authorization: `Bearer ${token}`, ...headers } }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (text += c));
      res.on("end", () => resolve({ status: res.statusCode!, type: String(res.headers["content-type"] ?? ""), text }));
    });
    req.on("error", reject);
    req.end();
  });
}
const lines = (text: string) => text.split("\r\n").filter((l) => l !== "");

t("CSV only when asked: Accept text/csv or ?format=csv; no Accept, */* and a JSON preference keep the envelope", async (ctx) => {
  const path = `/api/vaults/${ctx.vault}/trades`;
  const cases: Array<[string, Record<string, string>, "csv" | "json"]> = [
    ["", {}, "json"],
    ["", { Accept: "*/*" }, "json"],
    ["", { Accept: "application/json" }, "json"],
    ["", { Accept: "application/json, text/csv" }, "json"],
    ["", { Accept: "text/csv" }, "csv"],
    ["", { Accept: "text/csv;q=1, application/json;q=0.5" }, "csv"],
    ["?format=csv", {}, "csv"],
    ["?format=csv", { Accept: "application/json" }, "csv"],
    ["?format=json", { Accept: "text/csv" }, "json"],
  ];
  for (const [q, headers, want] of cases) {
    const r = await get(ctx, path + q, headers);
    const what = `${q} ${JSON.stringify(headers)}`;
    assert.is(r.status, 200, what);
    if (want === "json") {
      assert.match(r.type, /^application\/json/, what);
      assert.is(JSON.parse(r.text).data.trades.length, 100, what);
    } else {
      assert.match(r.type, /^text\/csv/, what);
      assert.is(lines(r.text)[0], "id,timestamp,symbol,side,size,price,pnl,fee", what);
    }
  }
});

t("trades CSV: every row without limit, newest first, ISO times, exact decimals; dates, limit and offset apply", async (ctx) => {
  const all = lines((await get(ctx, `/api/vaults/${ctx.vault}/trades?format=csv`)).text);
  assert.is(all.length, 151, "header + all 150 rows, not the JSON page's 100");
  assert.match(all[1]!, /^\d+,2026-11-07T05:00:00\.000Z,ETH,sell,0\.0123,3000\.95,-1\.25,0\.012345$/);
  assert.match(all[150]!, /^\d+,2026-11-01T00:00:00\.000Z,ETH,buy,0\.0123,3000\.05,0,0\.012345$/);
  const day = lines((await get(ctx, `/api/vaults/${ctx.vault}/trades?format=csv&startDate=2026-11-02&endDate=2026-11-02`)).text);
  assert.is(day.length, 25, "the 24 fills of 2026-11-02");
  assert.ok(day.slice(1).every((l) => l.split(",")[1]!.startsWith("2026-11-02T")));
  const page = lines((await get(ctx, `/api/vaults/${ctx.vault}/trades?format=csv&limit=5&offset=10`)).text);
  const json = JSON.parse((await get(ctx, `/api/vaults/${ctx.vault}/trades?limit=5&offset=10`)).text).data.trades;
  assert.equal(page.slice(1).map((l) => l.split(",")[0]), json.map((x: { id: string }) => x.id), "the same rows as the JSON page");
});

t("events CSV: id, time, type, txHash, blockNumber and the data as one JSON column; dates apply to JSON and CSV", async (ctx) => {
  const r = await get(ctx, `/api/vaults/${ctx.vault}/events`, { Accept: "text/csv" });
  const rows = lines(r.text);
  assert.is(rows[0], "id,time,type,txHash,blockNumber,data");
  assert.is(rows.length, 5);
  assert.match(rows[1]!, /^\d+,2026-11-02T12:00:00\.000Z,Paused,0x[0-9a-f]{64},13,"{""reason"":1,""maxDrawdown"":true,/);
  assert.match(rows[4]!, /^\d+,2026-11-01T00:00:00\.000Z,VaultCreated,0x[0-9a-f]{64},10,"{""note"":""say \\""hi\\"", twice""}"$/);
  const dated = lines((await get(ctx, `/api/vaults/${ctx.vault}/events?format=csv&startDate=2026-11-01T12:00:00Z&endDate=2026-11-02T00:00:00Z`)).text);
  assert.equal(dated.slice(1).map((l) => l.split(",")[1]), ["2026-11-02T00:00:00.000Z", "2026-11-01T12:00:00.000Z"]);
  const json = JSON.parse((await get(ctx, `/api/vaults/${ctx.vault}/events?startDate=2026-11-01T12:00:00Z&endDate=2026-11-02T00:00:00Z&limit=1&offset=1`)).text).data;
  assert.equal([json.total, json.events.length, json.events[0].time, json.hasMore], [2, 1, (T0 + 12 * HOUR) / 1000, false]);
  const skipped = lines((await get(ctx, `/api/vaults/${ctx.vault}/events?format=csv&startDate=2026-11-01T12:00:00Z&offset=1&limit=1`)).text);
  assert.equal(skipped.slice(1).map((l) => l.split(",")[1]), ["2026-11-02T00:00:00.000Z"]);
});

t("errors before the first byte keep the JSON envelope", async (ctx) => {
  const stranger = await get(ctx, `/api/vaults/${ctx.vault}/trades`, { Accept: "text/csv" }, ctx.eve.token);
  assert.equal([stranger.status, JSON.parse(stranger.text).error.code], [404, "NOT_FOUND"]);
  const bad = await get(ctx, `/api/vaults/${ctx.vault}/trades?format=csv&startDate=yesterday`);
  assert.equal([bad.status, JSON.parse(bad.text).error.details[0].field], [400, "query.startDate"]);
  const format = await get(ctx, `/api/vaults/${ctx.vault}/events?format=xml`);
  assert.equal([format.status, JSON.parse(format.text).error.details[0].field], [400, "query.format"]);
});

t("the OpenAPI document lists text/csv beside the JSON of both routes, and the format parameter", async (ctx) => {
  const doc = (await ctx.d.http.get("/api/openapi.json")).body;
  for (const route of ["trades", "events"]) {
    const op = doc.paths[`/api/vaults/{address}/${route}`].get;
    assert.equal(Object.keys(op.responses["200"].content).sort(), ["application/json", "text/csv"], route);
    assert.ok(op.parameters.some((p: { name: string }) => p.name === "format"), route);
  }
});

t("100,000 trades stream in constant memory", async (ctx) => {
  const N = 100_000;
  const big = await vaultOf(ctx.d, ctx.ivy.address, Array.from({ length: N }, (_, i) => fill(i, T0 + i * 1000)), 1);
  gc();
  const base = process.memoryUsage().heapUsed;
  let peak = 0;
  let rows = -1; // the header is not a row
  let bytes = 0;
  await new Promise<void>((resolve, reject) => {
    const req = request(`${ctx.d.url}/api/vaults/${big}/trades`, { headers: { Authorization: `Bearer ${ctx.ivy.token}`, Accept: "text/csv" } }, (res) => {
      assert.is(res.statusCode, 200);
      let chunks = 0;
      res.on("data", (c: Buffer) => {
        bytes += c.length;
        for (const b of c) if (b === 10) rows++;
        // Every few chunks: what is live now (the daemon runs in this process), after a full collection.
        if (++chunks % 8 === 0) {
          gc();
          peak = Math.max(peak, process.memoryUsage().heapUsed - base);
        }
      });
      res.on("end", resolve);
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
  assert.is(rows, N, "every row");
  // The rows' text alone is ~bytes; held as rows and text at once it is several times that.
  assert.ok(bytes > 6_000_000, `${bytes} bytes`);
  assert.ok(peak < 4_000_000, `live heap grew by ${(peak / 1e6).toFixed(1)} MB while streaming ${(bytes / 1e6).toFixed(1)} MB`);
});

t.run();
