// A vault's verification (GET /api/vaults/:address/verify) on a real daemon, sim and chain: a life
// with a deposit right after creation, a trade, a price move and a close verifies; a reading whose
// record no longer matches the exchange's ledger, or a settlement figure out of rule, is found.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { sql } from "kysely";
import { Wallet } from "ethers";
import { runCli } from "../helpers/cli.js";
import { faucet } from "../helpers/daemon.js";
import { simFaults } from "../helpers/sim-faults.js";
import { tempDir } from "../helpers/util.js";
import { closeWithProfit, startVaultDaemon, vaultCase, type VaultCase } from "../helpers/vaults.js";
import { checkSettlement } from "../../daemon/verify/chain-checks.js";
import { chainRecordsFrom } from "../../daemon/verify/chain-records.js";
import { exchangeRecordsFrom } from "../../daemon/verify/exchange-records.js";
import { verifyVault } from "../../daemon/verify/verify-vault.js";

const d = await startVaultDaemon();
test.after(() => d.close());

async function verify(c: VaultCase) {
  const r = await d.http.get(`/api/vaults/${c.vault}/verify`, { token: c.ivy.token });
  assert.is(r.status, 200, JSON.stringify(r.body));
  return r.body.data.verification;
}

const statuses = (v: { invariants: Array<{ invariant: string; status: string }> }) =>
  Object.fromEntries(v.invariants.map((i) => [i.invariant, i.status]));

test("a vault's life verifies: a deposit just after creation, a trade, a move, a close", async () => {
  const c = await vaultCase(d);
  await faucet(d, c.ivy.address, 5000); // moments after the creation block: netted, never profit
  await d.daemon.oracle.cycle();
  const closed = await closeWithProfit(c);
  assert.ok(Number(closed.finalBalance) < 10_700, `the deposit is not profit: ${closed.finalBalance}`);
  const v = await verify(c);
  assert.is(v.outcome, "holds", JSON.stringify(v, null, 1));
  assert.equal(statuses(v), { "readings-netted": "holds", "flat-points": "holds", breaches: "holds", settlement: "holds", orders: "holds" });
  assert.ok(v.invariants.find((i: { invariant: string }) => i.invariant === "flat-points").checked >= 1, "the close's flat reading was checked");
  const last = await d.http.get(`/api/vaults/${c.vault}/verification`, { token: c.tom.token });
  assert.equal(last.body.data.verification, v, "the last verification is kept");

  // From public endpoints only: no daemon records, the rest checked the same.
  const chain = chainRecordsFrom(d.daemon.chain.rpcUrl);
  try {
    const pub = await verifyVault(c.vault, { chain: chain.read, exchange: exchangeRecordsFrom(`${d.daemon.sim!.url}/info`) }, 0);
    assert.is(pub.outcome, "holds", JSON.stringify(pub, null, 1));
    // From the chain alone a reading is a flat point only when no fill is within a second of it: in
    // this quick life that depends on how fast the machine ran it, so either answer is right, a break never.
    const { "flat-points": flat, ...rest } = statuses(pub);
    assert.ok(flat === "not-checked" || flat === "holds", `flat-points: ${flat}`);
    assert.equal(rest, { "readings-netted": "not-checked", breaches: "holds", settlement: "holds", orders: "not-checked" });
    // A close that paid the trader a micro-USDC more than the rule is a break, with both figures.
    const records = await chain.read(c.vault);
    const tampered = { ...records, events: records.events.map((e) => (e.type === "Closed" ? { ...e, traderShare: e.traderShare + 1n } : e)) };
    const s = checkSettlement(tampered);
    assert.is(s.status, "broken");
    assert.match(s.break!.what, /traderShare/);
  } finally {
    chain.close();
  }
});

test("a reading whose recorded netting differs from the exchange's ledger is found", async () => {
  const c = await vaultCase(d);
  await faucet(d, c.ivy.address, 100);
  await d.daemon.oracle.cycle();
  assert.is((await verify(c)).outcome, "holds");
  await sql`update vault_readings set external = '0'`.execute(d.daemon.store.db);
  const v = await verify(c);
  assert.is(v.outcome, "broken");
  const netted = v.invariants.find((i: { invariant: string }) => i.invariant === "readings-netted");
  assert.is(netted.status, "broken");
  assert.is(netted.break.expected, "100");
  assert.is(netted.break.actual, "0");
});

test("tradevault verify --rpc-url --exchange: no daemon, no sign-in; exit 0 when it holds, 2 when it cannot read", async () => {
  const c = await vaultCase(d);
  await d.daemon.oracle.cycle();
  const home = tempDir("tv-verify-");
  try {
    const env = { TRADEVAULT_HOME: home.path };
    const publicArgs = ["--rpc-url", d.daemon.chain.rpcUrl, "--exchange", d.daemon.sim!.url];
    const ok = await runCli(["verify", c.vault, ...publicArgs, "--json"], env);
    assert.is(ok.code, 0, ok.stdout + ok.stderr);
    assert.is(ok.json.data.verification.mode, "public");
    assert.is(ok.json.data.verification.outcome, "holds");
    const human = await runCli(["verify", c.vault, ...publicArgs], env);
    assert.match(human.stdout, /from the chain and the exchange alone/);
    assert.match(human.stdout, /breaches\s+holds/);
    const nowhere = await runCli(["verify", Wallet.createRandom().address, ...publicArgs, "--json"], env);
    assert.is(nowhere.code, 2, nowhere.stdout + nowhere.stderr);
    assert.is(nowhere.json.data.verification.outcome, "unreadable");
    assert.match(nowhere.json.data.verification.reason, /cannot read the vault contract/);
    const half = await runCli(["verify", c.vault, "--rpc-url", d.daemon.chain.rpcUrl], env);
    assert.is(half.code, 2);
    assert.match(half.stderr, /--rpc-url and --exchange go together/);
  } finally {
    home.remove();
  }
});

test("an exchange that fails makes the verification unreadable, with the reason, never a 500 or a break", async () => {
  const c = await vaultCase(d);
  const faults = simFaults(d.daemon.sim!.url);
  await faults.add({ kind: "http500", endpoint: "info", count: 100_000 });
  try {
    const v = await verify(c);
    assert.is(v.outcome, "unreadable");
    assert.match(v.reason, /the exchange answered 500/);
    assert.equal(v.invariants, []);
  } finally {
    await faults.clear();
  }
  assert.is((await verify(c)).outcome, "holds", "and holds again once the exchange answers");
});

test("a stranger cannot verify a vault (404)", async () => {
  const c = await vaultCase(d);
  const other = await vaultCase(d);
  const r = await d.http.get(`/api/vaults/${c.vault}/verify`, { token: other.tom.token });
  assert.is(r.status, 404);
});

test.run();
