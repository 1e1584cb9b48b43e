// A user's first hour against a real daemon: several wallets in one home, the signed-in one signs;
// spinners on a terminal only; an order that filled says so; prompts check the session first and
// ask again on a bad answer; the daemon's answers match the schemas the CLI's types come from.
import { suite } from "uvu";
import * as assert from "uvu/assert";
import * as responses from "../../daemon/http/responses.js";
import { runCli, scriptedPrompts, type CliOptions } from "../helpers/cli.js";
import { startTestDaemon, type TestDaemon } from "../helpers/daemon.js";
import { tempDir } from "../helpers/util.js";
import { BUSY_MACHINE } from "../helpers/busy-machine.js";

const t = suite<{ d: TestDaemon; home: ReturnType<typeof tempDir>; addr: Record<string, string> }>("first hour");
t.before(async (ctx) => {
  ctx.d = await startTestDaemon({ config: BUSY_MACHINE });
  ctx.home = tempDir("tradevault-hour-");
  ctx.addr = {};
});
t.after(async (ctx) => {
  await ctx.d.close();
  ctx.home.remove();
});

type Ctx = { d: TestDaemon; home: { path: string } };
const cli = (ctx: Ctx, args: string[], env: Record<string, string> = {}, opts: CliOptions = {}) =>
  runCli(args, { TRADEVAULT_HOME: ctx.home.path, TRADEVAULT_URL: ctx.d.url, TRADEVAULT_PASSWORD: "correct horse", ...env }, opts);
const accountValue = async (ctx: Ctx) => {
  const r = await cli(ctx, ["account", "--json"]);
  assert.is(r.code, 0, r.stderr);
  responses.account.parse(r.json.data);
  return r.json.data.exchange.accountValue as string;
};

t("with two wallets, the signed-in one signs; --wallet and TRADEVAULT_WALLET still win", async (ctx) => {
  for (const name of ["ivy", "tom"]) ctx.addr[name] = (await cli(ctx, ["wallet", "create", name, "--json"])).json.data.address;
  const before = await cli(ctx, ["sim", "faucet", "100"]);
  assert.is(before.code, 2, "two wallets, no session: say which");
  assert.match(before.stderr, /more than one wallet/);

  const login = await cli(ctx, ["login", "--wallet", "ivy"], {}, { stderrIsTTY: true });
  assert.is(login.code, 0, login.stderr);
  assert.match(login.stderr, /Unlocking wallet "ivy"/, "a spinner while scrypt runs");
  assert.match(login.stderr, /Signing in/);
  assert.is((await cli(ctx, ["sim", "faucet", "10000"])).code, 0);
  const approve = await cli(ctx, ["agent", "approve"], {}, { stderrIsTTY: true });
  assert.is(approve.code, 0, approve.stderr);
  assert.match(approve.stderr, /Approving the agent/);
  const status = await cli(ctx, ["agent", "status", "--json"]);
  assert.is(status.json.data.approved, true);
  responses.agentStatus.parse(status.json.data);

  assert.is((await cli(ctx, ["sim", "faucet", "7"], { TRADEVAULT_WALLET: "tom" })).code, 0);
  assert.is((await cli(ctx, ["sim", "faucet", "1", "--wallet", "ivy"], { TRADEVAULT_WALLET: "tom" })).code, 0);
  assert.is(await accountValue(ctx), "10001");
  assert.is((await cli(ctx, ["login", "--wallet", "tom", "--json"], {}, { stderrIsTTY: true })).stderr, "", "no spinner with --json");
  assert.is(await accountValue(ctx), "7");
  assert.is((await cli(ctx, ["login", "--wallet", "ivy"])).stderr, "", "no spinner when stderr is not a terminal");
});

t("an order that filled at once says so; --json adds `fill` beside SPEC's keys", async (ctx) => {
  const buy = await cli(ctx, ["buy", "BTC", "0.01", "--json"]);
  assert.is(buy.code, 0, buy.stderr);
  const data = buy.json.data;
  responses.tradeResult.parse(data);
  assert.is(data.status, "submitted", "SPEC's status is kept");
  assert.equal(Object.keys(data).sort(), ["fill", "orderId", "status", "timestamp"]);
  assert.is(data.fill.size, 0.01);
  assert.ok(data.fill.averagePrice > 0);
  const one = await cli(ctx, ["order", String(data.orderId), "--json"]);
  responses.oneOrder.parse(one.json.data);
  assert.is(one.json.data.order.fills[0].price, data.fill.averagePrice);

  const sell = await cli(ctx, ["sell", "BTC", "0.01", "--yes"]);
  assert.is(sell.code, 0, sell.stderr);
  assert.match(sell.stdout, /^Order \d+ submitted, filled 0\.01 @ \d{1,3}(,\d{3})*(\.\d+)?: sell 0\.01 BTC at market\.$/m);

  const rest = await cli(ctx, ["buy", "BTC", "0.01", "--price", "30000", "--json"]);
  assert.equal(Object.keys(rest.json.data).sort(), ["orderId", "status", "timestamp"], "a resting order has no fill");
  responses.openOrders.parse((await cli(ctx, ["orders", "--json"])).json.data);
  responses.positions.parse((await cli(ctx, ["positions", "--json"])).json.data);
  responses.cancelResult.parse((await cli(ctx, ["cancel", String(rest.json.data.orderId), "--json"])).json.data);
});

t("proposals create checks the session before its questions, and asks again on a bad answer", async (ctx) => {
  const terminal = { stdinIsTTY: true };
  assert.is((await cli(ctx, ["logout"])).code, 0);
  const nobody = scriptedPrompts([]);
  const out = await cli(ctx, ["proposals", "create"], {}, { ...terminal, prompts: nobody.prompts });
  assert.is(out.code, 4, out.stderr);
  assert.equal(nobody.asked, [], "not one question before the session is known to be good");

  assert.is((await cli(ctx, ["login", "--wallet", "tom"])).code, 0);
  const user = scriptedPrompts(["ivy", ctx.addr.ivy!, ctx.addr.tom!, "0", "10000", "150", "10", "5", "thirty", "30", "20"]);
  const r = await cli(ctx, ["proposals", "create"], {}, { ...terminal, prompts: user.prompts });
  assert.is(r.code, 0, r.stderr);
  assert.equal(user.asked.filter((a) => a.refused).map((a) => a.answer), ["ivy", "0", "150", "thirty"]);
  const id = /proposals accept (\d+)/.exec(r.stdout)![1]!;
  const shown = await cli(ctx, ["proposals", "show", id, "--json"]);
  const p = responses.proposalResponse.parse(shown.json.data).proposal;
  responses.proposalList.parse((await cli(ctx, ["proposals", "list", "--json"])).json.data);
  assert.is(p.initialBalance, "10000");
  assert.equal(p.profitShare, { trader: 20, investor: 80 });
});

t.run();
