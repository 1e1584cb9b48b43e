// The vaults' chain indexer: vault rows and vault events in SQLite keyed by (tx hash, log index); the
// receipts of the daemon's vault calls (chain-ops.ts) written through before the call returns; a restart mid-way and a second pass over the same blocks read no event
// twice; listeners hear each inserted row once; the loop picks up transactions others send.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { join } from "node:path";
import { Wallet, toBeHex } from "ethers";
import type { IndexedChain as Chain } from "./_support.js";
import { fundVault } from "../../daemon/chain/contracts.js";
import type { CreateVaultResult } from "../../daemon/chain/contracts.js";
import { createIndexer, type Indexer } from "../../daemon/vaults/chain-indexer.js";
import { chainOps } from "../../daemon/vaults/chain-ops.js";
import { advanceCursor } from "../../daemon/db/chain-repo.js";
import { openStore } from "../../daemon/db/database.js";
import type { Store } from "../../daemon/db/database.js";
import type { VaultEventRow } from "../../daemon/db/schema-chain.js";
import { activeVaultFor, activeVaults, findVault, vaultEventsPage, vaultsOfParty } from "../../daemon/db/vaults-repo.js";
import { waitUntil } from "../helpers/util.js";
import { USDC, chainNow, ensureArtifacts, fundWithPermit, mintTo, newEnv, newVault, silent, start } from "./_support.js";
import type { Env } from "./_support.js";
import { allEvents } from "../helpers/store-reads.js";

let env: Env;
let chain: Chain;
let a: CreateVaultResult;
let b: CreateVaultResult;
const heard: VaultEventRow[] = [];
const others: Store[] = [];

test.before(async () => {
  await ensureArtifacts();
  env = await newEnv();
  chain = await start(env, { shutdownSettleMs: 50, indexer: { pollMs: 50 } });
  chain.indexer.onEvents((rows) => heard.push(...rows));
});

test.after(async () => {
  await chain.stop();
  for (const s of others) await s.close();
  await env.remove();
});

const key = (e: VaultEventRow) => `${e.tx_hash}:${e.log_index}`;
const comparable = ({ id: _id, ...e }: VaultEventRow) => e;

async function otherStore(name: string): Promise<Store> {
  const s = await openStore(join(env.dir, `${name}.sqlite`));
  others.push(s);
  return s;
}

function indexerOn(store: Store, pageSize: number): Indexer {
  return createIndexer({
    store, provider: chain.provider, factory: chain.addresses.factory, startBlock: chain.deployBlock, name: "test",
    settings: { confirmations: 0, pageSize, pollMs: 10 }, log: silent,
  });
}

/** The daemon's vault calls on this chain, each writing its receipt through. */
const ops = () => chainOps(chain, 30_000_000n, chain.indexer, silent);
const reading = (vault: string, balance: bigint, observedAt: number) =>
  ({ vault, balance, observedAt, source: { accountValue: "0", external: 0n, nettingFrom: 0, stateTime: observedAt * 1000, flat: true } });

test("receipts of the daemon's vault calls are in the database the moment the call returns", async () => {
  await mintTo(chain, env.investor.address, 5_000n * USDC);
  a = await newVault(chain, env);
  assert.is((await findVault(env.store.db, a.vault))?.investor, env.investor.address);
  b = await newVault(chain, env);
  await fundWithPermit(chain, env, a.vault, 1_000n * USDC);
  const t = await chainNow(chain);
  await ops().updateBalances([
    reading(a.vault, 10_500n * USDC, t),
    reading(b.vault, 10_000n * USDC, t), // b's first reading: the day's reference
  ]);
  const r = await ops().updateBalances([reading(b.vault, 8_900n * USDC, t + 1)]); // -11%: the daily limit is 10%
  assert.equal(r.paused, [b.vault], "the chain's result names the vault it paused");
  const vb = (await findVault(env.store.db, b.vault))!;
  assert.equal([vb.paused, vb.pause_reason, vb.current_balance, vb.last_observed_at], [1, 2, (8_900n * USDC).toString(), t + 1]);
  const paused = heard.find((e) => e.type === "Paused")!;
  assert.equal(JSON.parse(paused.data), { reason: 2, maxDrawdown: false, dailyDrawdown: true });
});

test("vault rows follow the whole life of a vault: readings, close, escrow and both withdrawals", async () => {
  const t = await chainNow(chain);
  await ops().updateBalances([reading(a.vault, 11_000n * USDC, t + 1)]);
  await ops().closeVault(a.vault);
  await ops().withdraw(a.vault, env.trader.address);
  await ops().withdraw(a.vault, env.investor.address);
  const va = (await findVault(env.store.db, a.vault))!;
  const u = (n: bigint) => (n * USDC).toString();
  assert.equal(
    [va.closed, va.final_balance, va.profit, va.trader_share, va.investor_share, va.funded_total, va.paid_trader, va.paid_investor, va.peak_balance],
    [1, u(11_000n), u(1_000n), u(200n), u(800n), u(1_000n), u(200n), u(800n), u(11_000n)],
  );
  assert.equal([va.trader, va.exchange_account, va.max_drawdown_bps, va.terms_hash], [env.trader.address, a.terms.exchangeAccount, 2_000, a.termsHash]);
  const page = await vaultEventsPage(env.store.db, a.vault, 100, 0);
  assert.is(page.total, 7);
  assert.equal(page.rows.map((e) => e.type).reverse(), ["VaultCreated", "Funded", "BalanceUpdated", "BalanceUpdated", "Closed", "Withdrawn", "Withdrawn"]);
  assert.equal(page.rows.map((e) => e.seq), [7, 6, 5, 4, 3, 2, 1]);
  assert.equal((await vaultEventsPage(env.store.db, a.vault, 2, 1)).rows.map((e) => e.seq), [6, 5]);
  assert.equal((await vaultsOfParty(env.store.db, env.trader.address)).map((v) => v.address).sort(), [a.vault, b.vault].sort());
  assert.equal((await activeVaults(env.store.db)).map((v) => v.address), [b.vault]);
  assert.is((await activeVaultFor(env.store.db, b.terms.exchangeAccount))?.address, b.vault);
  assert.is(await activeVaultFor(env.store.db, a.terms.exchangeAccount), undefined);
  const all = await allEvents(env.store.db);
  assert.is(new Set(all.map(key)).size, all.length);
  assert.equal(heard.map((e) => e.id), all.map((e) => e.id), "each inserted row was announced exactly once");
});

test("an indexer restarted mid-way over a fresh database reads every event once and the same rows", async () => {
  const store = await otherStore("second");
  const seen: VaultEventRow[] = [];
  const first = indexerOn(store, 2);
  first.onEvents((rows) => seen.push(...rows));
  for (let i = 0; i < 3; i++) await first.step();
  await first.stop();
  const midway = await first.cursor();
  assert.ok(midway < (await chain.provider.getBlockNumber()), "stopped before the head");
  const second = indexerOn(store, 2);
  second.onEvents((rows) => seen.push(...rows));
  assert.is(await second.cursor(), midway);
  await second.sync();
  const mine = await allEvents(env.store.db);
  const theirs = await allEvents(store.db);
  assert.equal(theirs.map(comparable), mine.map(comparable));
  assert.equal(seen.map(key), theirs.map(key));
  const strip = <T extends { updated_at: number }>({ updated_at: _u, ...r }: T) => r;
  assert.equal(strip((await findVault(store.db, a.vault))!), strip((await findVault(env.store.db, a.vault))!));
  assert.equal(strip((await findVault(store.db, b.vault))!), strip((await findVault(env.store.db, b.vault))!));

  // The cursor never goes back by itself (two indexers overlap for a moment when the sending moves).
  await advanceCursor(store.db, "test", chain.deployBlock - 1);
  assert.is(await second.cursor(), (await chain.provider.getBlockNumber()), "not moved back");
  // The same blocks once more, from the start: nothing is written, nobody hears anything.
  await store.db.updateTable("chain_cursor").set({ block: chain.deployBlock - 1 }).where("name", "=", "test").execute();
  const again = indexerOn(store, 50);
  const heardAgain: VaultEventRow[] = [];
  again.onEvents((rows) => heardAgain.push(...rows));
  assert.is(await again.sync(), 0);
  assert.is(heardAgain.length, 0);
  assert.is((await allEvents(store.db)).length, theirs.length);
});

test("a receipt written through before the indexer gets there is skipped by the indexer", async () => {
  const store = await otherStore("third");
  const idx = indexerOn(store, 50);
  const seen: VaultEventRow[] = [];
  idx.onEvents((rows) => seen.push(...rows));
  const receipt = (await chain.provider.getTransactionReceipt(b.txHash))!;
  const written = await idx.applyReceipt(receipt);
  assert.equal(written.map((e) => e.type), ["VaultCreated"]);
  assert.equal(await idx.applyReceipt(receipt), [], "the same receipt twice writes nothing");
  await idx.sync();
  const all = await allEvents(store.db);
  assert.is(all.length, (await allEvents(env.store.db)).length);
  assert.is(seen.length, all.length);
  assert.is(new Set(seen.map(key)).size, all.length);
});

test("the loop picks up what others send to the chain (anyone may fund an escrow)", async () => {
  const funder = Wallet.createRandom().connect(chain.provider);
  await chain.provider.send("hardhat_setBalance", [funder.address, toBeHex(10n ** 18n)]);
  await mintTo(chain, funder.address, 50n * USDC);
  const count = heard.length;
  await fundVault(funder as unknown as Wallet, { vault: b.vault, amount: 50n * USDC });
  const row = await waitUntil(async () => (await findVault(env.store.db, b.vault))!.funded_total === (50n * USDC).toString(), {
    what: "the indexer loop to see the Funded event",
  });
  assert.ok(row);
  const fresh = heard.slice(count).filter((e) => e.type === "Funded");
  assert.is(fresh.length, 1);
  assert.equal(JSON.parse(fresh[0]!.data), { from: funder.address, amount: (50n * USDC).toString() });
});

test.run();
