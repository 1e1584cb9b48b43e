// A vault's start through the HTTP API, against the embedded chain and the sim: creation from two
// signatures read back in SPEC's shapes, who may trade it, fills becoming vault trades, and a
// party's event stream ending at logout. Each test builds its own vault (test/helpers/vaults.ts);
// pause, staleness and closing live in vault-pause, vault-stale and vault-close.
import { suite } from "uvu";
import * as assert from "uvu/assert";
import type { TestDaemon } from "../helpers/daemon.js";
import { openSse } from "../helpers/sse.js";
import { waitUntil, within } from "../helpers/util.js";
import { assertEvents, longBtc, startVaultDaemon, stranger, vaultCase, vaultDetail, vaultTrade } from "../helpers/vaults.js";

const t = suite<{ d: TestDaemon }>("vault life");
t.before(async (ctx) => {
  ctx.d = await startVaultDaemon({ staleAfter: 5, oracleInterval: 1 });
});
t.after(async (ctx) => {
  await ctx.d.close();
});

t("creation from two signatures: the list reads back in SPEC's shape, with each drawdown beside its limit", async ({ d }) => {
  const c = await vaultCase(d);
  const list = (await d.http.get("/api/vaults", { token: c.ivy.token })).body.data.vaults;
  assert.equal(list[0], {
    address: c.vault, investor: c.ivy.address, trader: c.tom.address, initialBalance: "10000", currentBalance: "10000",
    status: "ACTIVE", paused: false, dealDeadline: list[0].dealDeadline, profitShare: { trader: 20, investor: 80 },
    // Beyond SPEC 2.10, for the list's gauges (docs/design.md "Limit warnings").
    maxDrawdown: 10, dailyDrawdown: 5, currentDrawdown: 0, currentDailyDrawdown: 0,
  });
  await assertEvents(c, ["VaultCreated", "BalanceUpdated"]);
});

t("the detail carries SPEC's types and the first reading written at creation", async ({ d }) => {
  const c = await vaultCase(d);
  const v = await vaultDetail(c);
  for (const k of ["maxDrawdown", "dailyDrawdown", "currentDrawdown", "dealDeadline"]) assert.type(v[k], "number", k);
  for (const k of ["initialBalance", "currentBalance", "peakBalance"]) assert.type(v[k], "string", k);
  assert.equal([v.maxDrawdown, v.dailyDrawdown, v.closed, v.paused], [10, 5, false, false]);
  assert.ok(Number.isInteger(v.lastBalanceUpdate), "the first reading was written at creation");
  assert.ok(Array.isArray(v.trades) && Array.isArray(v.positions));
});

t("a stranger neither lists the vault nor reads it, its trades or its events (404)", async ({ d }) => {
  const c = await vaultCase(d);
  const eve = await stranger(d);
  assert.equal((await d.http.get("/api/vaults", { token: eve.token })).body.data.vaults, []);
  for (const path of ["", "/trades", "/events"]) {
    assert.is((await d.http.get(`/api/vaults/${c.vault}${path}`, { token: eve.token })).status, 404, path);
  }
});

t("only the trader trades the vault: investor 403, stranger 404", async ({ d }) => {
  const c = await vaultCase(d);
  const eve = await stranger(d);
  assert.is((await vaultTrade(c, c.ivy)).status, 403);
  assert.is((await vaultTrade(c, eve)).status, 404);
  assert.is((await vaultTrade(c, c.tom)).status, 200);
});

t("the trader's fills become vault trades and positions on the investor's account", async ({ d }) => {
  const c = await vaultCase(d);
  await longBtc(c);
  await d.daemon.oracle.cycle();
  const trades = (await d.http.get(`/api/vaults/${c.vault}/trades`, { token: c.ivy.token })).body.data;
  assert.is(trades.total, 1);
  assert.equal(Object.keys(trades.trades[0]).sort(), ["fee", "id", "pnl", "price", "side", "size", "symbol", "timestamp"]);
  assert.equal([trades.trades[0].symbol, trades.trades[0].side, trades.trades[0].size], ["BTC", "buy", 0.1]);
  assert.type(trades.trades[0].id, "string");
  assert.is((await vaultDetail(c)).positions[0].size, 0.1);
  // the vault's orders are on the investor's exchange account, not the trader's
  assert.is((await d.http.get("/api/positions", { token: c.tom.token })).body.data.positions.length, 0);
  await assertEvents(c, ["Fill"]);
});

t("logout ends the user's event stream, after the events that came before it", async ({ d }) => {
  const c = await vaultCase(d);
  const s = await openSse(`${d.url}/api/events`, c.ivy.token);
  try {
    await d.daemon.oracle.cycle();
    await waitUntil(() => s.events.some((e) => e.event === "BalanceUpdated"), { what: "a live BalanceUpdated" });
    assert.is((await d.http.post("/api/auth/logout", undefined, { token: c.ivy.token })).status, 200);
    await within(s.ended, 10_000, "the stream's end after logout");
    assert.ok(s.events.every((e) => e.data.vault === c.vault), JSON.stringify(s.events));
    // the token is dead: no new stream either
    await openSse(`${d.url}/api/events`, c.ivy.token).then(
      (again) => (again.close(), assert.unreachable("a stream opened with a logged-out token")),
      (err: Error) => assert.match(err.message, /: 401 /),
    );
  } finally {
    s.close();
  }
});

t.run();
