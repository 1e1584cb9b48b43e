// `tradevault vaults export` writes a vault's trades or events as CSV to a file (or standard output),
// refuses a request that names neither, leaves no file behind when the daemon refuses; `vaults show`
// prints the performance figures; `vaults list` and `show` each drawdown against its limit.
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { getAddress } from "ethers";
import { appendFills } from "../../daemon/db/vault-trades-repo.js";
import { findVault, insertEvent, insertVault } from "../../daemon/db/vaults-repo.js";
import { runCli, seedWallet } from "../helpers/cli.js";
import { startTestDaemon, type TestDaemon } from "../helpers/daemon.js";
import { randomAddress, randomHash, vaultRow } from "../helpers/rows.js";
import { tempDir } from "../helpers/util.js";
import { BUSY_MACHINE } from "../helpers/busy-machine.js";

const t = suite<{ d: TestDaemon; home: ReturnType<typeof tempDir>; me: string; vault: string; other: string }>("vault export cli");
const T0 = Date.UTC(2026, 10, 1);
const PASSWORD = "correct horse";
const run = (ctx: { d: TestDaemon; home: { path: string } }, ...args: string[]) =>
  runCli(args, { TRADEVAULT_HOME: ctx.home.path, TRADEVAULT_URL: ctx.d.url, TRADEVAULT_PASSWORD: PASSWORD });

async function vaultWith(d: TestDaemon, investor: string): Promise<string> {
  // initial 10000; one reading of 10500 a day later: return 5%.
  const row = { ...vaultRow(getAddress(randomAddress())), investor, created_at: T0 / 1000, current_balance: "10500000000", last_observed_at: T0 / 1000 + 86_400 };
  await d.daemon.store.write(async (trx) => {
    await insertVault(trx, row);
    const v = (await findVault(trx, row.address))!;
    await insertEvent(trx, v, { type: "VaultCreated", txHash: randomHash(), logIndex: 0, blockNumber: 1, time: T0 / 1000, data: {} });
    await insertEvent(trx, v, {
      type: "BalanceUpdated", txHash: randomHash(), logIndex: 0, blockNumber: 2, time: T0 / 1000 + 86_400,
      data: { balance: "10500000000", peakBalance: "10500000000", dayStartBalance: "10500000000", observedAt: T0 / 1000 + 86_400, drawdownBps: 0, dailyDrawdownBps: 0 },
    });
    await appendFills(trx, row.address, row.exchange_account, Array.from({ length: 3 }, (_, i) => ({
      tid: 5_000 + i, oid: 1, symbol: "BTC", side: "buy" as const, size: "0.01", price: "60000", pnl: "0", fee: "0.27", timeMs: T0 + i * 60_000,
    })));
  });
  return row.address;
}

t.before(async (ctx) => {
  ctx.d = await startTestDaemon({ startOracle: false, config: BUSY_MACHINE });
  ctx.home = tempDir("tv-export-");
  const me = (ctx.me = await seedWallet(ctx.home.path, "ivy", PASSWORD));
  assert.is((await run(ctx, "login")).code, 0);
  ctx.vault = await vaultWith(ctx.d, me);
  ctx.other = await vaultWith(ctx.d, getAddress(randomAddress()));
});
t.after(async (ctx) => {
  await ctx.d.close();
  ctx.home.remove();
});

t("--trades --out writes the CSV file; --events goes to standard output", async (ctx) => {
  const file = join(ctx.home.path, "trades.csv");
  const r = await run(ctx, "vaults", "export", ctx.vault, "--trades", "--out", file);
  assert.is(r.code, 0, r.stderr);
  const rows = readFileSync(file, "utf8").split("\r\n").filter(Boolean);
  assert.is(rows[0], "id,timestamp,symbol,side,size,price,pnl,fee");
  assert.equal(rows.slice(1).map((l) => l.split(",").slice(1).join(",")), [
    "2026-11-01T00:02:00.000Z,BTC,buy,0.01,60000,0,0.27", "2026-11-01T00:01:00.000Z,BTC,buy,0.01,60000,0,0.27", "2026-11-01T00:00:00.000Z,BTC,buy,0.01,60000,0,0.27",
  ]);
  const from = await run(ctx, "vaults", "export", ctx.vault, "--trades", "--from", "2026-11-01T00:01:00Z", "--to", "2026-11-01T00:01:30Z");
  assert.is(from.stdout.split("\r\n").filter(Boolean).length, 2, "header and the one trade in the dates");
  const events = await run(ctx, "vaults", "export", ctx.vault, "--events");
  assert.is(events.code, 0, events.stderr);
  assert.equal(events.stdout.split("\r\n").filter(Boolean).map((l) => l.split(",")[2]), ["type", "BalanceUpdated", "VaultCreated"]);
});

t("neither or both of --trades and --events is a usage error; a refused export leaves no file", async (ctx) => {
  assert.is((await run(ctx, "vaults", "export", ctx.vault)).code, 2);
  assert.is((await run(ctx, "vaults", "export", ctx.vault, "--trades", "--events")).code, 2);
  const file = join(ctx.home.path, "not-mine.csv");
  const r = await run(ctx, "vaults", "export", ctx.other, "--trades", "--out", file);
  assert.is(r.code, 1);
  assert.match(r.stderr, /no vault/);
  assert.not.ok(existsSync(file) || existsSync(`${file}.partial`));
});

t("vaults show prints the performance figures", async (ctx) => {
  const r = await run(ctx, "vaults", "show", ctx.vault);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /return:\s+5%/);
  assert.match(r.stdout, /annualized \(simple\):\s+1825%/); // 5% x 365 / 1 day
  assert.match(r.stdout, /fees paid:\s+0\.81 USDC/);
  // The figures stand on the last reading: its time and age are said beside them.
  assert.match(r.stdout, /if closed now:\s+profit 500, trader 100, investor 400 USDC \(reading of 2026-11-02T00:00:00\.000Z, \d+ (s|min|h|d) ago\)\n/);
  assert.match(r.stdout, /2026-11-02\s+10500\s+500/);
  const json = await run(ctx, "vaults", "show", ctx.vault, "--json");
  assert.equal([(json.json as any).data.vault.address, (json.json as any).data.performance.returnPct], [ctx.vault, 5]);
});

t("vaults show of a closed vault has no 'if closed now': its settlement is shown instead", async (ctx) => {
  const row = { ...vaultRow(getAddress(randomAddress())), investor: ctx.me, closed: 1, closed_at: T0 / 1000 + 86_400, final_balance: "10500000000" };
  await ctx.d.daemon.store.write((trx) => insertVault(trx, row));
  const r = await run(ctx, "vaults", "show", row.address);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /\nfinal balance:\s+10500\n/);
  assert.match(r.stdout, /\nif closed now:\s+- \(the vault is closed: its settlement is above\)\n/);
});

t("vaults list and show: each drawdown of its limit, and how near once past 80% of it", async (ctx) => {
  // Limits 10% and 5%; 9,580 of a peak and day start of 10,000: 4.2% down, 42% and 84% of them.
  const row = {
    ...vaultRow(getAddress(randomAddress())), investor: ctx.me, max_drawdown_bps: 1000, daily_drawdown_bps: 500, created_at: T0 / 1000 + 10,
    current_balance: "9580000000", peak_balance: "10000000000", day_start_balance: "10000000000", last_observed_at: T0 / 1000 + 60,
  };
  await ctx.d.daemon.store.write((trx) => insertVault(trx, row));
  const list = await run(ctx, "vaults", "list");
  assert.is(list.code, 0, list.stderr);
  assert.match(list.stdout, /DRAWDOWN\s+DAILY DRAWDOWN/);
  const line = list.stdout.split("\n").find((l) => l.startsWith(row.address))!;
  assert.match(line, /\s4\.2% of 10%\s+4\.2% of 5% \(reached 80% of the limit\)\s/, line);
  assert.match(list.stdout.split("\n").find((l) => l.startsWith(ctx.vault))!, /\s0% of 50%\s+0% of 25%\s/);
  const show = await run(ctx, "vaults", "show", row.address);
  assert.is(show.code, 0, show.stderr);
  assert.match(show.stdout, /\ndrawdown:\s+4\.2% of 10%\n/);
  assert.match(show.stdout, /\ndaily drawdown:\s+4\.2% of 5% \(reached 80% of the limit\)\n/);
});

t.run();
