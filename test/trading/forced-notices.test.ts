// An exchange account the daemon trades for outside any vault: its liquidation and its
// auto-deleveraging are told to its owner as user notices (docs/trading.md "When the exchange closes
// a position"), once, delivered to the owner's webhooks, not again after a restart; an account that
// backs an open vault gets its vault's events instead; the reads take turns within their budget.
import { suite } from "uvu";
import * as assert from "uvu/assert";
import pino from "pino";
import { accountsOutsideVaults } from "../../daemon/db/agents-repo.js";
import { accountsPerCycle, createForcedFillNotices } from "../../daemon/notices/forced-fill-notices.js";
import { createUserNotices } from "../../daemon/notices/user-notices.js";
import { fakeClock, startTestDaemon, trader, type TestDaemon } from "../helpers/daemon.js";
import { tempDir, waitUntil } from "../helpers/util.js";
import { setPrice, vaultCase, vaultPost, vaultTrade } from "../helpers/vaults.js";
import { startReceiver, type Receiver } from "../alerts/_receiver.js";

const t = suite<{ d: TestDaemon; rx: Receiver; dir: ReturnType<typeof tempDir> }>("forced-fill notices");
const clock = fakeClock(Date.now(), { realTime: true });
const start = (dataDir: string) => startTestDaemon({ startOracle: false, clock, dataDir, config: { webhooksAllowPrivate: true } });

t.before(async (ctx) => {
  ctx.dir = tempDir();
  [ctx.d, ctx.rx] = await Promise.all([start(ctx.dir.path), startReceiver()]);
});
t.after(async (ctx) => {
  await ctx.rx.stop();
  await ctx.d.close();
  ctx.dir.remove();
});

const noticesOf = (d: TestDaemon, user: string) =>
  d.daemon.store.db.selectFrom("user_notices").selectAll().where("user", "=", user).orderBy("id").execute();
const buy = async (d: TestDaemon, token: string, size: number) => {
  const r = await d.http.post("/api/trade", { symbol: "BTC", side: "buy", size }, { token });
  assert.is(r.status, 200, JSON.stringify(r.body));
};

t("an own account liquidated: one Liquidated notice to its owner, delivered to the webhook, not told again", async ({ d, rx }) => {
  const own = await trader(d, 1_000);
  const hook = await d.http.post("/api/webhooks", { url: rx.url("/own"), format: "json", events: ["Liquidated", "Deleveraged"] }, { token: own.token });
  assert.is(hook.status, 200, JSON.stringify(hook.body));
  setPrice(d, "BTC", "60000");
  await buy(d, own.token, 0.3); // 18 000 of BTC on 1 000: liquidated below about 57 400
  assert.equal(setPrice(d, "BTC", "57000").liquidated, [own.wallet.address.toLowerCase()]);
  await d.daemon.oracle.cycle();

  const [notice, ...more] = await noticesOf(d, own.wallet.address);
  assert.equal(more, []);
  assert.is(notice!.type, "Liquidated");
  const data = JSON.parse(notice!.data);
  assert.is(notice!.key, `Liquidated:${own.wallet.address}:${data.tradeId}`);
  const { loss, tradeId: _, ...figures } = data;
  assert.equal(figures, { account: own.wallet.address, symbol: "BTC", side: "sell", size: "0.3", price: "57000", markPrice: "57000" });
  assert.ok(Number(loss) > 900 && Number(loss) < 1_000, loss);
  const hit = await waitUntil(() => rx.at("/own")[0], { what: "the notice's delivery" });
  const delivered = JSON.parse(hit.body);
  assert.equal([delivered.event.type, delivered.event.data.tradeId], ["Liquidated", data.tradeId]);
  assert.match(delivered.text, `the exchange liquidated 0.3 BTC at 57,000`);

  await d.daemon.oracle.cycle();
  assert.is((await noticesOf(d, own.wallet.address)).length, 1, "a second read tells nothing again");
});

t("an own account auto-deleveraged through /sim/adl: one Deleveraged notice", async ({ d }) => {
  const own = await trader(d, 10_000);
  setPrice(d, "BTC", "60000");
  await buy(d, own.token, 0.1);
  setPrice(d, "BTC", "61000");
  d.daemon.sim!.deleverage(own.wallet.address, "BTC");
  await d.daemon.oracle.cycle();
  const told = await noticesOf(d, own.wallet.address);
  assert.equal(told.map((n) => n.type), ["Deleveraged"]);
  const data = JSON.parse(told[0]!.data);
  assert.equal([data.side, data.size, data.price, data.loss.startsWith("-")], ["sell", "0.1", "61000", true]);
});

t("an account backing a vault: the vault's Liquidated event, no notice, also once the vault is closed", async ({ d }) => {
  const c = await vaultCase(d);
  setPrice(d, "BTC", "60000");
  assert.is((await vaultTrade(c, c.tom, { size: 3 })).status, 200);
  assert.equal(setPrice(d, "BTC", "50000").liquidated, [c.ivy.address.toLowerCase()]);
  await d.daemon.oracle.cycle();
  const events = (await d.http.get(`/api/vaults/${c.vault}/events?limit=1000`, { token: c.ivy.token })).body.data.events as Array<{ type: string }>;
  assert.is(events.filter((e) => e.type === "Liquidated").length, 1);
  const forced = async () => (await noticesOf(d, c.ivy.address)).filter((n) => n.type === "Liquidated" || n.type === "Deleveraged");
  assert.equal(await forced(), []);
  // Closed, the vault leaves an own account behind (its agent still valid): what filled while the vault traded it stays the vault's.
  const closed = await vaultPost(c, "close", c.ivy);
  assert.is(closed.status, 200, JSON.stringify(closed.body));
  await d.daemon.oracle.cycle();
  assert.ok(d.daemon.sim!.requests.some((r) => (r.body as any)?.type === "userFillsByTime" && String((r.body as any).user).toLowerCase() === c.ivy.address.toLowerCase()), "its fills were read as an own account's");
  assert.equal(await forced(), []);
});

t("restarted on the same data directory, the daemon reads on from where it stopped and tells nothing twice", async (ctx) => {
  const before = await ctx.d.daemon.store.db.selectFrom("user_notices").select(["key"]).orderBy("id").execute();
  assert.ok(before.length >= 2);
  await ctx.d.close(); // the data directory is this file's, so it stays
  ctx.d = await start(ctx.dir.path);
  const reads = ctx.d.daemon.sim!.requests.length;
  await ctx.d.daemon.oracle.cycle();
  assert.ok(ctx.d.daemon.sim!.requests.slice(reads).some((r) => (r.body as any)?.type === "userFillsByTime"), "the accounts' fills were read again");
  assert.equal(await ctx.d.daemon.store.db.selectFrom("user_notices").select(["key"]).orderBy("id").execute(), before);
});

t("within the budget: a few accounts a sweep, those read longest ago first", async ({ d }) => {
  assert.equal([10_000, 30_000, 60_000, 1_000].map(accountsPerCycle), [1, 3, 6, 1]);
  const read: string[] = [];
  const sweeps = createForcedFillNotices({
    db: d.daemon.store.db, work: d.daemon.store, notices: createUserNotices({ db: d.daemon.store.db, clock }), clock, log: pino({ level: "silent" }), perSweep: 1,
    fills: async (account) => {
      read.push(account);
      return [];
    },
  });
  const n = (await accountsOutsideVaults(d.daemon.store.db, clock())).length;
  assert.is(n, 3, "the two own accounts and the closed vault's investor");
  for (let i = 0; i <= n; i++) {
    clock.advance(1);
    await sweeps.sweep();
  }
  assert.is(read.length, n + 1, "one account a sweep");
  assert.is(new Set(read.slice(0, n)).size, n, "every account had its turn before any had a second");
  assert.is(read[n], read[0], "then the one read longest ago");
});

t.run();
