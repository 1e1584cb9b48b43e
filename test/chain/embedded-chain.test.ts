// The embedded chain: first start deploys and records the contracts on 127.0.0.1; a restart (the
// chain forgot everything) rebuilds it from the journal with every contract at its old address,
// every vault's terms, state and escrow back, the token balances equal and the event table unchanged.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { Interface, JsonRpcProvider } from "ethers";
import type { IndexedChain as Chain } from "./_support.js";
import { closeVault, readTokenBalance, readVaultState, updateBalances, withdrawFromVault } from "../../daemon/chain/contracts.js";
import { loadOrCreateOperatorKey } from "../../daemon/chain/operator-key.js";
import { USDC, chainNow, ensureArtifacts, fundWithPermit, mintTo, newEnv, newVault, recorded, reopenStore, start } from "./_support.js";
import type { Env } from "./_support.js";
import { allEvents, journalRows } from "../helpers/store-reads.js";

let env: Env;
let chain: Chain | undefined;

test.before(async () => {
  await ensureArtifacts();
  env = await newEnv();
});

test.after(async () => {
  await chain?.stop();
  await env.remove();
});

test("the operator key is generated once, 0600, and read back", () => {
  const path = join(env.dir, "keys", "operator.key");
  assert.is(statSync(path).mode & 0o777, 0o600);
  const again = loadOrCreateOperatorKey(path);
  assert.is(again.privateKey, env.operatorKey);
  assert.is(again.created, false);
});

test("first start deploys token, implementation and factory, records them, and serves on 127.0.0.1", async () => {
  chain = await start(env);
  assert.match(chain.rpcUrl, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.is(chain.kind, "embedded");
  assert.is(chain.rebuilt, false);
  const outside = new JsonRpcProvider(chain.rpcUrl, undefined, { staticNetwork: true });
  assert.is(Number(await outside.send("eth_chainId", [])), 31337);
  outside.destroy();
  const record = JSON.parse(readFileSync(join(env.dir, "chain", "31337.json"), "utf8"));
  assert.equal([record.factory, record.implementation, record.token], [chain.addresses.factory, chain.addresses.implementation, chain.addresses.token]);
  assert.ok(record.genesisTime > 0);
  for (const a of Object.values(chain.addresses)) assert.is.not(await chain.provider.getCode(a), "0x");
  const purposes = (await journalRows(env.store.db, chain.key)).map((r) => `${r.purpose}:${r.status}`);
  assert.equal(purposes, ["deploy:TestUSDC:confirmed", "deploy:TradingVault:confirmed", "deploy:VaultFactory:confirmed"]);
});

interface Snapshot {
  vaults: unknown[];
  balances: bigint[];
  events: unknown[];
  rows: unknown[];
  operatorEth: bigint;
  head: number;
}

async function snapshotOf(c: Chain, vaults: string[]): Promise<Snapshot> {
  await c.indexer.sync();
  const holders = [env.investor.address, env.trader.address, c.operator, ...vaults];
  return {
    vaults: await Promise.all(vaults.map((vault) => readVaultState(c.provider, { vault }))),
    balances: await Promise.all(holders.map((account) => readTokenBalance(c.provider, { token: c.addresses.token, account }))),
    events: await allEvents(env.store.db),
    rows: (await env.store.db.selectFrom("vaults").selectAll().orderBy("address").execute()).map(({ updated_at: _u, ...r }) => r),
    operatorEth: await c.provider.getBalance(c.operator),
    head: await c.provider.getBlockNumber(),
  };
}

let vaults: string[] = [];
let before: Snapshot;

test("a day of vault history: creation, escrow by permit, batched readings, a pause, close and withdrawals", async () => {
  const c = chain!;
  await mintTo(c, env.investor.address, 5_000n * USDC);
  const a = await newVault(c, env);
  const b = await newVault(c, env, { maxDrawdownBps: 500 });
  vaults = [a.vault, b.vault];
  await fundWithPermit(c, env, a.vault, 1_000n * USDC);
  // Blocks nobody journaled (a test's evm_mine): the rebuild must keep block numbers all the same.
  await c.provider.send("hardhat_mine", ["0x3"]);
  let t = await chainNow(c);
  const r1 = await updateBalances(c.signer, { factory: c.addresses.factory, readings: [
    { vault: a.vault, balance: 11_000n * USDC, observedAt: t },
    { vault: b.vault, balance: 9_400n * USDC, observedAt: t }, // -6% against a 5% limit
  ] });
  assert.equal(r1.paused, [{ vault: b.vault, reason: 1 }]);
  await updateBalances(c.signer, { factory: c.addresses.factory, readings: [{ vault: a.vault, balance: 12_000n * USDC, observedAt: t + 1 }] });
  const closed = await closeVault(c.signer, { vault: a.vault });
  assert.is(closed.profit, 2_000n * USDC);
  assert.is(closed.traderShare, 400n * USDC);
  await withdrawFromVault(c.signer, { vault: a.vault, party: env.trader.address });
  before = await snapshotOf(c, vaults);
  const types = (before.events as { type: string }[]).map((e) => e.type);
  assert.equal(types, ["VaultCreated", "VaultCreated", "Funded", "BalanceUpdated", "BalanceUpdated", "Paused", "BalanceUpdated", "Closed", "Withdrawn"]);
});

test("a restart rebuilds the forgotten chain: same addresses, vault states, balances, escrow and events", async () => {
  const old = chain!;
  const addresses = old.addresses;
  await old.stop();
  chain = undefined;
  await reopenStore(env);
  chain = await start(env, { shutdownSettleMs: 50 });
  assert.is(chain.rebuilt, true);
  assert.equal(chain.addresses, addresses);
  const after = await snapshotOf(chain, vaults);
  assert.equal(after.vaults, before.vaults);
  assert.equal(after.balances, before.balances);
  assert.is(after.operatorEth, before.operatorEth);
  assert.is(after.head, before.head);
  assert.equal(after.events, before.events);
  assert.equal(after.rows, before.rows);
  const escrow = (before.vaults[0] as { escrow: bigint }).escrow;
  assert.is(escrow, 600n * USDC);
});

test("a transaction in flight at shutdown is settled after the restart; the rebuilt chain runs at the daemon's time", async () => {
  const c = chain!;
  await c.provider.send("evm_setAutomine", [false]); // the mint stays in the mempool, never mined
  const data = new Interface(["function mint(address,uint256)"]).encodeFunctionData("mint", [env.trader.address, 7n]);
  const sent = await c.sender.send({ to: c.addresses.token, data, purpose: "mint" });
  await c.stop();
  chain = undefined;
  await reopenStore(env);
  // The daemon's clock an hour ahead of the machine's: the replayed chain must follow it.
  const ahead = () => Date.now() + 3_600_000;
  chain = await start(env, { clock: ahead, shutdownSettleMs: 50 });
  assert.is(chain.rebuilt, true);
  await waitMined(chain, sent.hash);
  assert.is(await readTokenBalance(chain.provider, { token: chain.addresses.token, account: env.trader.address }), 400n * USDC + 7n);
  const observedAt = Math.floor(ahead() / 1000);
  const r = await recorded(chain, await updateBalances(chain.signer, { factory: chain.addresses.factory, readings: [{ vault: vaults[1]!, balance: 9_900n * USDC, observedAt }] }));
  assert.is(r.applied.length, 1, "a reading at the daemon's time is accepted (the chain clock is not stuck in the past)");
  assert.ok((await chainNow(chain)) >= observedAt - 5);
  const row = await env.store.db.selectFrom("vaults").selectAll().where("address", "=", vaults[1]!).executeTakeFirstOrThrow();
  assert.is(row.current_balance, (9_900n * USDC).toString());
  assert.is(row.last_observed_at, observedAt);
});

async function waitMined(c: Chain, hash: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await c.provider.getTransactionReceipt(hash)) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`${hash} never mined`);
}

test.run();
