// Backup while the daemon runs under a load of writes (orders and sign-ins in a loop), restore into a
// new folder, start a daemon on it: the same vaults, sessions, orders and events over the API, the
// same contract state on its (rebuilt) chain, and a database copy that is one instant of the original.
import { suite } from "uvu";
import * as assert from "uvu/assert";
import Database from "better-sqlite3";
import type { HDNodeWallet, Wallet } from "ethers";
import { sqliteHandle } from "../../daemon/db/sqlite-store.js";
import { signIn, startTestDaemon, trader, type TestDaemon } from "../helpers/daemon.js";
import { breach, chainVaultState, closeWithProfit, setPrice, startVaultDaemon, tokenBalance, vaultCase, type VaultCase } from "../helpers/vaults.js";
import { tempDir } from "../helpers/util.js";
import { tradevaultd } from "./_cli.js";

interface Ctx {
  d: TestDaemon;
  paused: VaultCase;
  closed: VaultCase;
  load: { token: string; wallet: Wallet | HDNodeWallet };
  backupDir: string;
  restored?: TestDaemon;
  writesDuringBackup: number;
  dirs: Array<{ remove(): void }>;
}
const t = suite<Ctx>("backup and restore");

t.before(async (ctx) => {
  ctx.dirs = [];
  ctx.d = await startVaultDaemon();
  ctx.paused = await vaultCase(ctx.d);
  await breach(ctx.paused); // a fill, a resting order, a BalanceUpdated and a Paused on-chain
  ctx.closed = await vaultCase(ctx.d);
  await closeWithProfit(ctx.closed); // Closed, with the contract's split frozen
  const t1 = await trader(ctx.d);
  ctx.load = { token: t1.token, wallet: t1.wallet };
});
t.after(async (ctx) => {
  await ctx.restored?.close();
  await ctx.d.close();
  for (const dir of ctx.dirs) dir.remove();
});

/** Writes in a loop until stopped: a resting order, then a sign-in (a new session), again and again. */
function writeLoad(ctx: Ctx) {
  let stop = false;
  let done = 0;
  const loop = (async () => {
    while (!stop) {
      const r = await ctx.d.http.post("/api/trade", { symbol: "BTC", side: "sell", size: 0.001, price: 90000, tif: "GTC" }, { token: ctx.load.token });
      assert.is(r.status, 200, JSON.stringify(r.body));
      await signIn(ctx.d.http, ctx.load.wallet);
      done += 2;
    }
  })();
  return { done: () => done, stop: async () => ((stop = true), await loop) };
}

const rows = (d: TestDaemon, q: string) => sqliteHandle(d.daemon.store).prepare(q).all() as Array<Record<string, unknown>>;

t("a backup taken under load restores into a daemon that serves the same data", async (ctx) => {
  const out = tempDir("tradevault-backup-");
  ctx.dirs.push(out);
  ctx.backupDir = `${out.path}/b`;
  const load = writeLoad(ctx);
  while (load.done() < 10) await new Promise((r) => setImmediate(r));
  const before = load.done();
  const run = await tradevaultd(["backup", ctx.backupDir, "--data-dir", ctx.d.dataDir]);
  ctx.writesDuringBackup = load.done() - before;
  await load.stop();
  assert.is(run.code, 0, run.stderr);
  assert.match(run.stdout, /keep it where only you can read it/);
  // Runnable as printed from the project folder, where tradevaultd is not on PATH before npm link.
  assert.match(run.stdout, `Check or restore it with: npx tradevaultd restore ${ctx.backupDir} --data-dir <new folder>`);
  assert.ok(ctx.writesDuringBackup > 0, "the daemon kept writing while the backup ran");

  const target = tempDir("tradevault-restored-");
  ctx.dirs.push(target);
  const restoredDir = `${target.path}/data`;
  const restore = await tradevaultd(["restore", ctx.backupDir, "--data-dir", restoredDir]);
  assert.is(restore.code, 0, restore.stderr);
  assert.match(restore.stdout, `Start the daemon on it with: npx tradevaultd --data-dir ${restoredDir} (plus the --exchange flags it ran with)`);
  const r = (ctx.restored = await startTestDaemon({ dataDir: restoredDir, startOracle: false, clock: ctx.d.clock }));

  // The database copy is the original as of one instant: a prefix of the orders and the sessions
  // (never a later row without an earlier one). Read from the backup itself, before a daemon touched
  // it; an order in flight at that instant ("pending") is settled later, so only its status may differ.
  const snapshot = new Database(`${ctx.backupDir}/tradevault-sim.db`, { readonly: true });
  const inBackup = (q: string) => snapshot.prepare(q).all() as Array<Record<string, unknown>>;
  const orderCols = "select id, cloid, status, oid, size, price, user from orders order by id";
  const sessionCols = "select rowid, token_hash, address, created_at from sessions order by rowid";
  try {
    for (const q of [orderCols, sessionCols]) {
      const copy = inBackup(q);
      const orig = rows(ctx.d, q).slice(0, copy.length);
      const same = (a: Record<string, unknown>, b: Record<string, unknown> | undefined) =>
        JSON.stringify(a.status === "pending" ? { ...a, status: b?.status, oid: b?.oid } : a) === JSON.stringify(b);
      const i = copy.findIndex((row, n) => !same(row, orig[n]));
      assert.is(i, -1, `${q}: row ${i} ${JSON.stringify(copy[i])} vs ${JSON.stringify(orig[i])}`);
    }
    const loadOrders = inBackup(orderCols).filter((o) => o.user === ctx.load.wallet.address).length;
    if (process.env.OPS_DEBUG) console.log({ before, during: ctx.writesDuringBackup, inBackup: loadOrders, original: rows(ctx.d, orderCols).length, sessions: [inBackup(sessionCols).length, rows(ctx.d, sessionCols).length] });
    assert.ok(loadOrders >= before / 2, `${loadOrders} load orders in the backup, ${before / 2} were acknowledged before it began`);
    assert.equal(rows(r, orderCols).map((o) => o.cloid), inBackup(orderCols).map((o) => o.cloid), "the restored daemon has the backup's orders");
  } finally {
    snapshot.close();
  }

  // Over the API, with the sessions the users had: vaults, details, events, trades, orders.
  for (const c of [ctx.paused, ctx.closed]) setPrice(c.d, "BTC", "66000");
  setPrice(r, "BTC", "66000");
  for (const c of [ctx.paused, ctx.closed]) {
    for (const who of [c.ivy, c.tom]) {
      for (const path of ["/api/vaults", `/api/vaults/${c.vault}`, `/api/vaults/${c.vault}/events?limit=1000`, `/api/vaults/${c.vault}/trades`]) {
        const [a, b] = [await ctx.d.http.get(path, { token: who.token }), await r.http.get(path, { token: who.token })];
        assert.is(b.status, 200, `${path}: ${JSON.stringify(b.body)}`);
        assert.equal(b.body, a.body, path);
      }
    }
    const [a, b] = [await ctx.d.http.get(`/api/orders?vaultAddress=${c.vault}`, { token: c.tom.token }), await r.http.get(`/api/orders?vaultAddress=${c.vault}`, { token: c.tom.token })];
    assert.equal(b.body, a.body, "the vault's open orders");
  }
  const events = (await r.http.get(`/api/vaults/${ctx.paused.vault}/events?limit=1000`, { token: ctx.paused.ivy.token })).body.data.events.map((e: { type: string }) => e.type);
  assert.ok(events.includes("Paused") && events.includes("BalanceUpdated"), events.join());
});

t("the restored chain holds the same contract state", async (ctx) => {
  const r = ctx.restored!;
  assert.equal(r.daemon.chain.addresses, ctx.d.daemon.chain.addresses);
  for (const c of [ctx.paused, ctx.closed]) {
    const there = { ...c, d: r };
    assert.equal(await chainVaultState(there), await chainVaultState(c), c.vault);
    assert.is((await chainVaultState(there)).paused || (await chainVaultState(there)).closed, true);
    for (const who of [c.vault, c.ivy.address, c.tom.address]) assert.is(await tokenBalance(there, who), await tokenBalance(c, who), who);
    // Every word of the vault's own storage, beyond what state() shows.
    const slots = (d: TestDaemon) => Promise.all(Array.from({ length: 48 }, (_, i) => d.daemon.chain.provider.getStorage(c.vault, i)));
    assert.equal(await slots(r), await slots(ctx.d));
    assert.is(await r.daemon.chain.provider.getCode(c.vault), await ctx.d.daemon.chain.provider.getCode(c.vault));
  }
});

t.run();
