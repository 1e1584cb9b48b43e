// The trading commands of the CLI against a real daemon and its sim: faucet, agent approval signed
// locally, buy/sell, orders, cancel, positions, close; --json everywhere.
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { startTestDaemon, type TestDaemon } from "../helpers/daemon.js";
import { runCli } from "../helpers/cli.js";
import { tempDir, waitUntil } from "../helpers/util.js";
import { BUSY_MACHINE } from "../helpers/busy-machine.js";

const t = suite<{ d: TestDaemon; home: ReturnType<typeof tempDir> }>("trading cli");
t.before(async (ctx) => {
  ctx.d = await startTestDaemon({ config: BUSY_MACHINE });
  ctx.home = tempDir("tradevault-cli-");
});
t.after(async (ctx) => {
  await ctx.d.close();
  ctx.home.remove();
});

const cli = (ctx: { d: TestDaemon; home: { path: string } }, ...args: string[]) =>
  runCli(args, { TRADEVAULT_HOME: ctx.home.path, TRADEVAULT_URL: ctx.d.url, TRADEVAULT_PASSWORD: "correct horse" });

t("a trader's first session: wallet, login, faucet, agent approval, orders and positions", async (ctx) => {
  assert.is((await cli(ctx, "wallet", "create", "alice")).code, 0);
  assert.is((await cli(ctx, "login")).code, 0);

  const faucet = await cli(ctx, "sim", "faucet", "10000", "--json");
  assert.is(faucet.code, 0, faucet.stderr);
  assert.is(faucet.json.data.usdc, "10000");

  const before = await cli(ctx, "buy", "BTC", "0.01", "--price", "50000");
  assert.is(before.code, 1, "no agent yet");
  assert.match(before.stderr, /agent/);

  const status = await cli(ctx, "agent", "status", "--json");
  assert.is(status.json.data.approved, false);
  const approve = await cli(ctx, "agent", "approve", "--json");
  assert.is(approve.code, 0, approve.stderr);
  assert.is(approve.json.data.approved, true);
  assert.is(approve.json.data.agentAddress, status.json.data.agentAddress);

  const limit = await cli(ctx, "buy", "BTC", "0.01", "--price", "50000", "--tif", "GTC", "--json");
  assert.is(limit.code, 0, limit.stderr);
  const id = limit.json.data.orderId;
  const orders = await cli(ctx, "orders", "--json");
  assert.ok(orders.json.data.orders.some((o: any) => o.orderId === id && o.status === "resting"));
  const human = await cli(ctx, "orders");
  assert.match(human.stdout, new RegExp(`${id}\\s+BTC\\s+buy\\s+0.01\\s+50000\\s+resting`));

  assert.is((await cli(ctx, "cancel", String(id))).code, 0);
  const again = await cli(ctx, "cancel", String(id), "--json");
  assert.is(again.code, 1);
  assert.is(again.json.error.code, "ORDER_NOT_OPEN");

  const market = await cli(ctx, "sell", "ETH", "0.5", "--json");
  assert.is(market.code, 0, market.stderr);
  const positions = await cli(ctx, "positions", "--json");
  assert.is(positions.json.data.positions.find((p: any) => p.symbol === "ETH").size, -0.5);
  assert.is((await cli(ctx, "close", "ETH", "--size", "0.25")).code, 0);
  const after = await cli(ctx, "positions", "--json");
  assert.is(after.json.data.positions.find((p: any) => p.symbol === "ETH").size, -0.25);

  const detail = await cli(ctx, "order", String(market.json.data.orderId), "--json");
  assert.is(detail.json.data.order.status, "filled");
});

t("bad order arguments are usage errors (exit 2) and reach no daemon", async (ctx) => {
  assert.is((await cli(ctx, "buy", "BTC", "lots")).code, 2);
  assert.is((await cli(ctx, "buy", "BTC", "0.01", "--tif", "FOK")).code, 2);
  assert.is((await cli(ctx, "sim", "price", "BTC", "-1")).code, 2);
});

t("the daemon's validation errors come back with their code and field", async (ctx) => {
  const r = await cli(ctx, "buy", "BTC", "0.000001", "--price", "50000", "--json");
  assert.is(r.code, 1);
  assert.is(r.json.error.code, "INVALID_INPUT");
  assert.is(r.json.error.details[0].field, "body.size");
});

t("sim price moves the mark and fills a resting order that it crosses", async (ctx) => {
  const limit = await cli(ctx, "buy", "SOL", "1", "--price", "140", "--json");
  assert.is(limit.code, 0, limit.stderr);
  assert.is((await cli(ctx, "sim", "price", "SOL", "139")).code, 0);
  const detail = await cli(ctx, "order", String(limit.json.data.orderId), "--json");
  assert.is(detail.json.data.order.status, "filled");
});

t("sim price --via api: an open daemon lets the signed-in user move a mark through its API, bounded", async (ctx) => {
  const moved = await cli(ctx, "sim", "price", "SOL", "145", "--via", "api");
  assert.is(moved.code, 0, moved.stderr);
  assert.is(ctx.d.daemon.sim!.mark("SOL"), "145");
  const far = await cli(ctx, "sim", "price", "SOL", "500", "--via", "api", "--json");
  assert.is(far.code, 1);
  assert.is(far.json.error.code, "INVALID_INPUT");
  assert.match(far.json.error.message, /20%/);
});

t("stop and take-profit protect a position from the side opposite it; with no position, exit 2", async (ctx) => {
  // The first test signed in, funded and approved this home's wallet.
  ctx.d.daemon.sim!.setPrice("SOL", "150");
  assert.is((await cli(ctx, "buy", "SOL", "1", "--yes")).code, 0);
  // Earlier tests traded SOL too: the stop covers whatever the position is now.
  const held = (await cli(ctx, "positions", "--json")).json.data.positions.find((p: any) => p.symbol === "SOL").size;
  assert.ok(held > 0);
  const stop = await cli(ctx, "stop", "SOL", "140", "--yes");
  assert.is(stop.code, 0, stop.stderr);
  assert.match(stop.stdout, new RegExp(`stop sell ${held} SOL when the mark reaches 140, at market`), stop.stdout);
  const tp = await cli(ctx, "take-profit", "SOL", "165", "--size", "0.5", "--limit", "164", "--yes", "--json");
  assert.is(tp.code, 0, tp.stderr);
  const listed = await cli(ctx, "orders");
  assert.match(listed.stdout, /stop-loss at 140/);
  assert.match(listed.stdout, /take-profit at 165 \(limit\)/);
  const json = (await cli(ctx, "orders", "--json")).json.data.orders;
  assert.equal(json.find((o: any) => o.orderId === tp.json.data.orderId).trigger, { price: 165, kind: "tp", market: false, triggered: false });
  assert.is(json.find((o: any) => o.trigger?.kind === "sl").size, held, "the whole position by default");

  const none = await cli(ctx, "take-profit", "DOGE", "1", "--yes");
  assert.is(none.code, 2);
  assert.match(none.stderr, /no DOGE position to protect/);
});

t("buy --stop-loss --take-profit sends the entry with its protection, shown waiting for the fill", async (ctx) => {
  ctx.d.daemon.sim!.setPrice("ETH", "3000");
  const buy = await cli(ctx, "buy", "ETH", "1", "--price", "2900", "--stop-loss", "2800", "--take-profit", "3300", "--yes");
  assert.is(buy.code, 0, buy.stderr);
  assert.match(buy.stdout, /buy 1 ETH at 2900 \(GTC\) with stop-loss 2800, take-profit 3300; stop-loss 2,800 waits for the fill, take-profit 3,300 waits for the fill\./);
  const listed = await cli(ctx, "orders");
  assert.match(listed.stdout, /with stop-loss 2,800 waits for the fill, take-profit 3,300 waits for the fill/);
  const wrong = await cli(ctx, "sell", "ETH", "1", "--stop-loss", "2500", "--yes");
  assert.is(wrong.code, 1, "a short's stop below the price is refused by the daemon");
  assert.match(wrong.stderr, /stopLoss\.price: a short's stop-loss must be above the entry price/);
});

t("a stop that gaps past its bound is closed by the daemon, and `notices` says so", async (ctx) => {
  // The stop at 140 from the stop test still covers the SOL long; SOL drops straight to 126.
  assert.is((await cli(ctx, "sim", "price", "SOL", "126")).code, 0);
  await waitUntil(async () => !(await cli(ctx, "positions", "--json")).json.data.positions.some((p: any) => p.symbol === "SOL"),
    { slowMs: 30_000, what: "the daemon closed the long the stop did not" });
  const notices = await waitUntil(async () => {
    const r = await cli(ctx, "notices", "--json");
    return r.json.data.notices.some((n: any) => n.type === "StopFilled") && r.json.data.notices;
  }, { what: "StopFilled among the notices" });
  assert.equal(notices.map((n: any) => n.type), ["StopFilled", "StopFailed"], "newest first");
  const human = await cli(ctx, "notices");
  assert.match(human.stdout, /Stop did not fill .*the SOL stop-loss at 140 fired but did not fill/);
  assert.match(human.stdout, /Stop held .*the SOL stop-loss at 140 held: closed [\d.]+ SOL at 12\d/);
  assert.is((await cli(ctx, "notices", "--limit", "0")).code, 2);
});

t.run();
