// `tradevault sim` in each --sim-controls mode. On the daemon's machine (a loopback --url) it uses the
// sim's own loopback port: unbounded, in every mode. Through the API (--via api, the default for a
// daemon elsewhere) it needs the operator token under `operator` (TRADEVAULT_OPERATOR_TOKEN, or
// --data-dir to read the daemon's file), is bounded, and is refused by name under `off`.
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ExchangeClient, HttpTransport } from "@nktkas/hyperliquid";
import { Wallet, hexlify, randomBytes } from "ethers";
import { startTestDaemon, type TestDaemon } from "../helpers/daemon.js";
import { runCli, seedWallet } from "../helpers/cli.js";
import { tempDir } from "../helpers/util.js";
import { BUSY_MACHINE } from "../helpers/busy-machine.js";

interface Ctx { op: TestDaemon; off: TestDaemon; home: ReturnType<typeof tempDir> }
const t = suite<Ctx>("sim cli");
t.before(async (ctx) => {
  ctx.op = await startTestDaemon({ startOracle: false, config: { ...BUSY_MACHINE, simControls: "operator" } });
  ctx.off = await startTestDaemon({ startOracle: false, config: { ...BUSY_MACHINE, simControls: "off" } });
  ctx.home = tempDir("tradevault-cli-");
});
t.after(async (ctx) => {
  await ctx.op?.close();
  await ctx.off?.close();
  ctx.home.remove();
});

const cli = (ctx: Ctx, d: TestDaemon, args: string[], env: Record<string, string> = {}) =>
  runCli(args, { TRADEVAULT_HOME: ctx.home.path, TRADEVAULT_URL: d.url, TRADEVAULT_PASSWORD: "correct horse", ...env });

t("on the daemon's machine `sim price` uses the sim's loopback port: no token, no bound, even under operator", async (ctx) => {
  await seedWallet(ctx.home.path, "alice", "correct horse"); // a cheap scrypt: `login` unlocks it (cli.ts)
  assert.is((await cli(ctx, ctx.op, ["login"])).code, 0);
  const r = await cli(ctx, ctx.op, ["sim", "price", "BTC", "1000"]);
  assert.is(r.code, 0, r.stderr);
  assert.is(ctx.op.daemon.sim!.mark("BTC"), "1000");
  assert.is((await cli(ctx, ctx.op, ["sim", "price", "BTC", "60000"])).code, 0);
});

t("--via api under operator: refused without a token, moves with --data-dir or TRADEVAULT_OPERATOR_TOKEN, bounded", async (ctx) => {
  const none = await cli(ctx, ctx.op, ["sim", "price", "BTC", "61000", "--via", "api", "--json"]);
  assert.is(none.code, 1);
  assert.is(none.json.error.code, "OPERATOR_TOKEN_NEEDED");
  assert.match(none.stderr + JSON.stringify(none.json), /TRADEVAULT_OPERATOR_TOKEN/);

  const byFile = await cli(ctx, ctx.op, ["sim", "price", "BTC", "61000", "--via", "api", "--data-dir", ctx.op.dataDir]);
  assert.is(byFile.code, 0, byFile.stderr);
  assert.is(ctx.op.daemon.sim!.mark("BTC"), "61000");

  const token = readFileSync(join(ctx.op.dataDir, "keys", "operator.token"), "utf8").trim();
  const byEnv = await cli(ctx, ctx.op, ["sim", "price", "BTC", "62000", "--via", "api"], { TRADEVAULT_OPERATOR_TOKEN: token });
  assert.is(byEnv.code, 0, byEnv.stderr);
  assert.is(ctx.op.daemon.sim!.mark("BTC"), "62000");

  const wrong = await cli(ctx, ctx.op, ["sim", "price", "BTC", "63000", "--via", "api", "--json"], { TRADEVAULT_OPERATOR_TOKEN: "f".repeat(64) });
  assert.is(wrong.code, 1);
  assert.is(wrong.json.error.code, "FORBIDDEN");

  const far = await cli(ctx, ctx.op, ["sim", "price", "BTC", "1", "--via", "api", "--json"], { TRADEVAULT_OPERATOR_TOKEN: token });
  assert.is(far.code, 1);
  assert.is(far.json.error.code, "INVALID_INPUT");
  assert.is(ctx.op.daemon.sim!.mark("BTC"), "62000");
});

t("--via api faucet credits the signed-in account and says what is left today; naming another wallet is a usage error", async (ctx) => {
  const r = await cli(ctx, ctx.op, ["sim", "faucet", "100", "--via", "api", "--json"]);
  assert.is(r.code, 0, r.stderr);
  assert.is(r.json.data.leftToday, "99900");
  assert.is((await cli(ctx, ctx.op, ["sim", "faucet", "100", "--via", "api", "--wallet", "alice"])).code, 2);
  assert.is((await cli(ctx, ctx.op, ["sim", "price", "BTC", "60000", "--via", "elsewhere"])).code, 2);
});

t("the faucet names the account in EIP-55 both ways; a refused sim price says the sim's message, not its JSON", async (ctx) => {
  const address = (await cli(ctx, ctx.op, ["wallet", "address", "alice", "--json"])).json.data.address as string;
  assert.match(address, /[A-F]/, "a checksummed address has capitals");
  for (const via of ["sim", "api"]) {
    const json = await cli(ctx, ctx.op, ["sim", "faucet", "5", "--via", via, "--json"]);
    assert.is(json.code, 0, json.stderr);
    assert.is(json.json.data.user, address, `--via ${via}: the sim answers lower case; the CLI says EIP-55`);
    const human = await cli(ctx, ctx.op, ["sim", "faucet", "5", "--via", via]);
    assert.match(human.stdout, `Credited 5 USDC to ${address} on the sim`);
  }
  const r = await cli(ctx, ctx.op, ["sim", "price", "FOO", "1"]);
  assert.is(r.code, 1);
  assert.equal(r.stderr.trim().split("\n"), ["tradevault: the sim refused: unknown symbol FOO"]);
});

t("`sim withdraw` takes USDC out of the wallet's sim account (a withdraw in its ledger), refuses more than it can give, and only on the sim's port", async (ctx) => {
  const address = (await cli(ctx, ctx.op, ["wallet", "address", "alice", "--json"])).json.data.address as string;
  const sim = ctx.op.daemon.sim!;
  await sim.faucet(address, "300");
  const before = await ctx.op.daemon.exchange.accountState(address);
  const json = await cli(ctx, ctx.op, ["sim", "withdraw", "120.25", "--json"]);
  assert.is(json.code, 0, json.stderr);
  assert.equal([json.json.data.user, json.json.data.amount], [address, "120.25"]);
  const after = await ctx.op.daemon.exchange.accountState(address);
  assert.is(Number(before.accountValue) - Number(after.accountValue), 120.25);
  assert.is(json.json.data.usdc, after.accountValue);
  const ledger = await ctx.op.daemon.exchange.ledgerUpdates(address, 0);
  assert.equal(ledger.at(-1)!.type, "withdraw");
  assert.equal(ledger.at(-1)!.usdcDelta, "-120.25");
  const human = await cli(ctx, ctx.op, ["sim", "withdraw", "0.75"]);
  assert.is(human.code, 0, human.stderr);
  assert.match(human.stdout, `Withdrew 0.75 USDC from ${address} on the sim (`);
  const over = await cli(ctx, ctx.op, ["sim", "withdraw", "1000000"]);
  assert.is(over.code, 1);
  assert.match(over.stderr, /the sim refused: 1000000\.0 USDC is more than the account's withdrawable [\d.]+ USDC \(margin in use stays\)/);
  assert.is((await cli(ctx, ctx.op, ["sim", "withdraw", "1", "--via", "api"])).code, 2);
  assert.is((await cli(ctx, ctx.op, ["sim", "withdraw", "-1"])).code, 2);
});

t("`sim adl` deleverages a named account's position on the sim's port, and through the API with the operator token", async (ctx) => {
  const sim = ctx.op.daemon.sim!;
  sim.setPrice("BTC", "60000");
  const w = new Wallet(hexlify(randomBytes(32)));
  await sim.faucet(w.address, 1000);
  const ex = new ExchangeClient({ transport: new HttpTransport({ apiUrl: sim.url, isTestnet: true }), wallet: w });
  await ex.order({ orders: [{ a: 0, b: true, p: "61000", s: "0.01", r: false, t: { limit: { tif: "Ioc" } } }], grouping: "na" });
  const part = await cli(ctx, ctx.op, ["sim", "adl", "btc", "0.004", "--address", w.address.toLowerCase(), "--json"]);
  assert.is(part.code, 0, part.stderr);
  assert.equal([part.json.data.user, part.json.data.size, part.json.data.price, part.json.data.position], [w.address, "0.004", "60000", "0.006"]);
  const none = await cli(ctx, ctx.op, ["sim", "adl", "BTC", "--address", w.address, "--via", "api", "--json"]);
  assert.equal([none.code, none.json.error.code], [1, "OPERATOR_TOKEN_NEEDED"]);
  const token = readFileSync(join(ctx.op.dataDir, "keys", "operator.token"), "utf8").trim();
  const rest = await cli(ctx, ctx.op, ["sim", "adl", "BTC", "--address", w.address, "--via", "api"], { TRADEVAULT_OPERATOR_TOKEN: token });
  assert.is(rest.code, 0, rest.stderr);
  assert.match(rest.stdout, `Auto-deleveraged 0.006 BTC of ${w.address} at 60000 on the sim (closed PnL `);
  assert.match(rest.stdout, "position now 0)");
  const gone = await cli(ctx, ctx.op, ["sim", "adl", "BTC", "--address", w.address]);
  assert.is(gone.code, 1);
  assert.match(gone.stderr, /the sim refused: 0x[0-9a-f]{40} has no BTC position to deleverage/);
  assert.is((await cli(ctx, ctx.op, ["sim", "adl", "BTC", "-1"])).code, 2);
  const off = await cli(ctx, ctx.off, ["sim", "adl", "BTC", "--address", w.address, "--via", "api", "--json"]);
  assert.equal([off.code, off.json.error.code], [1, "SIM_CONTROLS_OFF"]);
});

t("under off, --via api is refused by name; the loopback port still serves the machine's own user", async (ctx) => {
  const api = await cli(ctx, ctx.off, ["sim", "price", "BTC", "61000", "--via", "api", "--json"]);
  assert.is(api.code, 1);
  assert.is(api.json.error.code, "SIM_CONTROLS_OFF");
  const local = await cli(ctx, ctx.off, ["sim", "price", "BTC", "61000"]);
  assert.is(local.code, 0, local.stderr);
  assert.is(ctx.off.daemon.sim!.mark("BTC"), "61000");
});

t.run();
