// The vault commands of the CLI with two people (two CLI homes) against one daemon, and the demo.
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { packageRoot } from "../../daemon/lib/package-root.js";
import * as responses from "../../daemon/http/responses.js";
import { runCli, seedWallet } from "../helpers/cli.js";
import { fakeClock, startTestDaemon, type TestDaemon } from "../helpers/daemon.js";
import { tempDir } from "../helpers/util.js";
import { BUSY_MACHINE } from "../helpers/busy-machine.js";

const t = suite<{ d: TestDaemon; homes: Record<string, ReturnType<typeof tempDir>> }>("vault cli");
t.before(async (ctx) => {
  ctx.d = await startTestDaemon({ startOracle: false, clock: fakeClock(Date.now(), { realTime: true }), config: BUSY_MACHINE });
  ctx.homes = { ivy: tempDir("tv-ivy-"), tom: tempDir("tv-tom-") };
});
t.after(async (ctx) => {
  await ctx.d.close();
  for (const h of Object.values(ctx.homes)) h.remove();
});

const PASSWORD = "correct horse";
const as = (ctx: { d: TestDaemon; homes: Record<string, { path: string }> }, who: "ivy" | "tom") => (...args: string[]) =>
  runCli(args, { TRADEVAULT_HOME: ctx.homes[who]!.path, TRADEVAULT_URL: ctx.d.url, TRADEVAULT_PASSWORD: PASSWORD });

t("two people create, trade, close, fund and settle a vault from the command line", async (ctx) => {
  const ivy = as(ctx, "ivy");
  const tom = as(ctx, "tom");
  // Wallets made with a cheap scrypt: each of the commands below that signs unlocks one (cli.ts).
  const ivyAddr = await seedWallet(ctx.homes.ivy!.path, "ivy", PASSWORD);
  const tomAddr = await seedWallet(ctx.homes.tom!.path, "tom", PASSWORD);
  for (const run of [ivy, tom]) assert.is((await run("login")).code, 0);
  assert.is((await ivy("sim", "faucet", "10000")).code, 0);
  assert.is((await ivy("agent", "approve")).code, 0);

  const created = await tom("proposals", "create", "--investor", ivyAddr, "--trader", tomAddr, "--balance", "10000",
    "--max-drawdown", "10", "--daily-drawdown", "5", "--days", "30", "--trader-share", "20", "--breach-policy", "reduce-only", "--json");
  assert.is(created.code, 0, created.stderr);
  assert.is(created.json.data.proposal.breachPolicy, "reduce-only");
  const id = String(created.json.data.proposal.id);
  const missing = await tom("proposals", "create", "--investor", ivyAddr);
  assert.is(missing.code, 2, "off a terminal, missing terms are a usage error");
  const badPolicy = await tom("proposals", "create", "--investor", ivyAddr, "--trader", tomAddr, "--balance", "10000",
    "--max-drawdown", "10", "--daily-drawdown", "5", "--days", "30", "--trader-share", "20", "--breach-policy", "panic");
  assert.is(badPolicy.code, 2);
  assert.match(badPolicy.stderr, /--breach-policy must be one of pause, reduce-only, flatten/);
  assert.match((await tom("proposals", "show", id)).stdout, /on a breach:\s+reduce-only/);

  assert.is((await tom("proposals", "accept", id)).code, 0);
  const accepted = await ivy("proposals", "accept", id, "--json");
  assert.is(accepted.code, 0, accepted.stderr);
  responses.proposalAction.parse(accepted.json.data);
  const vault = accepted.json.data.proposal.vaultAddress;
  assert.match(vault, /^0x[0-9a-fA-F]{40}$/);

  const list = await tom("vaults", "list");
  assert.match(list.stdout, new RegExp(`${vault}\\s+ACTIVE\\s+no\\s+10000`));
  assert.is((await tom("buy", "ETH", "1", "--vault", vault)).code, 0);
  await ctx.d.daemon.oracle.cycle();
  const trades = await ivy("vaults", "trades", vault, "--from", "2026-01-01", "--json");
  assert.is(trades.json.data.total, 1);
  responses.vaultTrades.parse(trades.json.data);
  responses.vaultList.parse((await tom("vaults", "list", "--json")).json.data);
  responses.vaultDetailResponse.parse((await ivy("vaults", "show", vault, "--json")).json.data);
  responses.vaultEvents.parse((await ivy("vaults", "events", vault, "--json")).json.data);
  const show = await ivy("vaults", "show", vault);
  assert.match(show.stdout, /ETH\s+1\s/);

  const events = await ivy("events", "--limit", "2", "--json");
  assert.is(events.code, 0);
  const lines = events.stdout.trim().split("\n").map((l) => JSON.parse(l));
  assert.is(lines.length, 2);
  assert.is(lines[0].type, "VaultCreated");

  const closed = await ivy("vaults", "close", vault, "--json");
  assert.is(closed.code, 0, closed.stderr);
  assert.is(closed.json.data.vault.status, "CLOSED");
  responses.vaultClose.parse(closed.json.data);
  responses.vaultDetailResponse.parse((await ivy("vaults", "show", vault, "--json")).json.data);
  const funded = await ivy("vaults", "fund", vault, "100", "--json");
  assert.is(funded.code, 0, funded.stderr);
  responses.fundResult.parse(funded.json.data);
  const tw = await tom("vaults", "withdraw", vault, "--json");
  const iw = await ivy("vaults", "withdraw", vault, "--json");
  assert.is(iw.code, 0, iw.stdout + iw.stderr);
  responses.withdrawal.parse(iw.json.data);
  assert.is(Number(tw.json?.data?.amount ?? 0) + Number(iw.json.data.amount), 100);
  assert.is((await ivy("vaults", "withdraw", vault, "--json")).json.error.code, "NOTHING_TO_WITHDRAW");

  // The events in sentences (the describer the dashboard uses), with the vault's limits and parties.
  const short = `${vault.slice(0, 6)}…${vault.slice(-4)}`;
  const told = await ivy("vaults", "events", vault);
  assert.is(told.code, 0, told.stderr);
  for (const sentence of [
    new RegExp(`Vault ${short} created: 10,000\\.00 USDC, max drawdown 10%, daily 5%, trader's share 20%, until \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC \\(on a breach: reduce-only\\)`),
    /Balance [\d,]+\.\d{2,} USDC, drawdown [\d.]+% \(max 10%\)/,
    /Bought 1 ETH at [\d,.]+ \(fee [\d.]+ USDC\)/,
    new RegExp(`Vault ${short} closed: final balance [\\d,]+\\.\\d{2,} USDC, (profit|loss) `),
    /Flattened for the close: 1 position closed \(ETH 1 at [\d,.]+\)/,
    /Escrow funded with 100\.00 USDC by the investor/,
    /Withdrawn: [\d.]+ USDC to the investor/,
  ]) assert.match(told.stdout, sentence, told.stdout);
  assert.not.match(told.stdout, /undefined|NaN|\[object|null/);
  const live = await ivy("events", "--limit", "2");
  assert.is(live.code, 0, live.stderr);
  const [first] = live.stdout.trim().split("\n");
  assert.match(first!, new RegExp(`^\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z  #\\d+  ${short}  Vault ${short} created: 10,000\\.00 USDC`));
});

t("before the investor funds the escrow: the close says what to fund and how; the trader's withdraw says what is owed and by whom", async (ctx) => {
  const homes = { ivy: tempDir("tv-ivy-"), tom: tempDir("tv-tom-") };
  try {
    const run = (who: "ivy" | "tom") => (...args: string[]) =>
      runCli(args, { TRADEVAULT_HOME: homes[who].path, TRADEVAULT_URL: ctx.d.url, TRADEVAULT_PASSWORD: PASSWORD });
    const [ivy, tom] = [run("ivy"), run("tom")];
    const ivyAddr = await seedWallet(homes.ivy.path, "ivy", PASSWORD);
    const tomAddr = await seedWallet(homes.tom.path, "tom", PASSWORD);
    for (const r of [ivy, tom]) assert.is((await r("login")).code, 0);
    assert.is((await ivy("sim", "faucet", "10000")).code, 0);
    assert.is((await ivy("agent", "approve")).code, 0);
    const created = await tom("proposals", "create", "--investor", ivyAddr, "--trader", tomAddr, "--balance", "10000",
      "--max-drawdown", "10", "--daily-drawdown", "5", "--days", "30", "--trader-share", "20", "--json");
    assert.is(created.code, 0, created.stderr);
    const id = String(created.json.data.proposal.id);
    assert.is((await tom("proposals", "accept", id)).code, 0);
    const vault = (await ivy("proposals", "accept", id, "--json")).json.data.proposal.vaultAddress as string;
    ctx.d.daemon.sim!.setPrice("ETH", "3000");
    assert.is((await tom("buy", "ETH", "1", "--vault", vault)).code, 0);
    ctx.d.daemon.sim!.setPrice("ETH", "3300");

    const closed = await ivy("vaults", "close", vault);
    assert.is(closed.code, 0, closed.stderr);
    const share = /trader share:\s+([\d.]+)/.exec(closed.stdout)![1]!;
    assert.ok(Number(share) > 0, closed.stdout);
    assert.match(closed.stdout, new RegExp(`escrow:\\s+holds 0 USDC; the trader is owed ${share} USDC`));
    const fundIt = `npx tradevault vaults fund ${vault} ${share}`;
    assert.match(closed.stdout, `The investor must fund the escrow with ${share} USDC before the trader can be paid in full: ${fundIt}`);

    const refused = await tom("vaults", "withdraw", vault);
    assert.is(refused.code, 1);
    assert.match(refused.stderr, `the trader is owed ${share} USDC but the escrow holds 0: the investor (${ivyAddr}) has not funded it yet`);
    assert.match(refused.stderr, `For the investor to fund the escrow: ${fundIt}`);
    const json = await tom("vaults", "withdraw", vault, "--json");
    assert.equal([json.code, json.json.error.code, json.json.error.details],
      [1, "ESCROW_NOT_FUNDED", { owed: share, escrow: "0", investor: ivyAddr, next: [{ action: "fundVault", vault, amount: share }] }]);

    assert.is((await ivy(...fundIt.split(" ").slice(2))).code, 0, "the suggested command works as written");
    const paid = await tom("vaults", "withdraw", vault, "--json");
    assert.is(paid.code, 0, paid.stderr);
    assert.is(paid.json.data.amount, share);
  } finally {
    for (const h of Object.values(homes)) h.remove();
  }
});

t("tradevault demo plays a vault's whole life on its own fresh daemon", async () => {
  const bin = join(packageRoot(), "bin", "tradevault");
  assert.ok(existsSync(join(packageRoot(), "dist", "cli", "main.js")), "dist/ is missing: run npm run build");
  const home = tempDir();
  try {
    const out = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
      execFile(process.execPath, [bin, "demo", "--json"], { cwd: home.path, env: { ...process.env, TRADEVAULT_HOME: home.path } },
        (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr })));
    assert.is(out.code, 0, out.stderr);
    const summary = JSON.parse(out.stdout).data;
    assert.match(summary.vault, /^0x[0-9a-fA-F]{40}$/);
    assert.is(summary.close.status, "CLOSED");
    assert.ok(summary.close.profit > 0);
    for (const e of ["VaultCreated", "Paused", "Unpaused", "Closed", "Funded", "Withdrawn"]) assert.ok(summary.events.includes(e), e);
    assert.match(out.stderr, /VAULT_PAUSED/);
    assert.match(out.stderr, /NOT_RECOVERED/);
  } finally {
    home.remove();
  }
});

t.run();
