// The operator's transaction sender: its own nonces under concurrent sends, a revert decoded into
// AppError before anything is signed, re-pricing of a stuck transaction, the journal of everything
// it signed, and resuming after a restart.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { Interface, JsonRpcProvider, Transaction, Wallet } from "ethers";
import type { TransactionReceipt } from "ethers";
import type { Chain } from "../../daemon/chain/chain.js";
import { createVault, readTokenBalance } from "../../daemon/chain/contracts.js";
import { DEFAULT_SENDER_SETTINGS, createTxSender } from "../../daemon/chain/tx-sender.js";
import { isAppError } from "../../daemon/errors.js";
import { waitUntil } from "../helpers/util.js";
import { USDC, ensureArtifacts, mintTo, newEnv, signedTerms, silent, start } from "./_support.js";
import type { Env } from "./_support.js";
import { journalRows } from "../helpers/store-reads.js";

let env: Env;
let chain: Chain;
const token = new Interface(["function mint(address,uint256)"]);

test.before(async () => {
  await ensureArtifacts();
  env = await newEnv();
  chain = await start(env, { sender: { bumpAfterMs: 300, pollMs: 50 }, shutdownSettleMs: 50 });
});

test.after(async () => {
  await chain.stop();
  await env.remove();
});

const journal = () => journalRows(env.store.db, chain.key);
const mintData = (to: string, amount: bigint) => token.encodeFunctionData("mint", [to, amount]);

test("concurrent sends get consecutive nonces from the sender's own counter, all mined", async () => {
  const first = chain.sender.nextNonce();
  const to = Wallet.createRandom().address;
  const results = await Promise.all(Array.from({ length: 12 }, () => mintTo(chain, to, 1n * USDC)));
  assert.is(new Set(results.map((r) => r.txHash)).size, 12);
  const rows = (await journal()).filter((r) => r.nonce >= first);
  assert.equal(rows.map((r) => r.nonce), Array.from({ length: 12 }, (_, i) => first + i));
  assert.ok(rows.every((r) => r.status === "confirmed" && r.purpose === "mint" && r.block_number !== null && r.block_time !== null));
  assert.is(chain.sender.nextNonce(), first + 12);
  assert.is(await chain.provider.getTransactionCount(chain.operator, "latest"), first + 12);
  assert.is(await readTokenBalance(chain.provider, { token: chain.addresses.token, account: to }), 12n * USDC);
});

test("a revert is decoded into AppError by the simulation, before anything is signed or journaled", async () => {
  const rowsBefore = (await journal()).length;
  const nonce = chain.sender.nextNonce();
  const p = await signedTerms(chain, env);
  const stranger = Wallet.createRandom();
  const forged = await stranger.signTypedData(
    { name: "TradeVault", version: "1", chainId: 31337, verifyingContract: chain.addresses.factory },
    { Ping: [{ name: "x", type: "uint256" }] }, { x: 1 },
  );
  try {
    await createVault(chain.signer, { ...p, traderSignature: forged });
    assert.unreachable("createVault with a forged signature succeeded");
  } catch (e) {
    assert.ok(isAppError(e));
    assert.is(e.code, "INVALID_INPUT");
    assert.equal((e.details as { revert: string }).revert, "InvalidSignature");
  }
  assert.is((await journal()).length, rowsBefore);
  assert.is(chain.sender.nextNonce(), nonce);
});

test("with its own gas limit a transaction is simulated on a real chain, and mined as given on the embedded one", async () => {
  const bogus = { to: chain.addresses.factory, data: "0xdeadbeef", gasLimit: 100_000n, purpose: "bogus call" };
  // Settings of a real chain: the eth_call refuses it before anything is signed or journaled.
  const real = createTxSender({
    provider: chain.provider, wallet: new Wallet(env.operatorKey), chainId: 31337n, chain: chain.key,
    store: env.store, log: silent, nowS: () => Math.floor(Date.now() / 1000),
    settings: { ...DEFAULT_SENDER_SETTINGS, pollMs: 50 },
  });
  await real.start();
  const rowsBefore = (await journal()).length;
  try {
    await real.send(bogus);
    assert.unreachable("a reverting call was sent on the real chain's settings");
  } catch (e) {
    assert.ok(isAppError(e), String(e));
  } finally {
    await real.stop();
  }
  assert.is((await journal()).length, rowsBefore);
  // The embedded chain's sender skips that simulation (gas is free there): the revert is mined and
  // wait() reports it.
  const nonce = chain.sender.nextNonce();
  const sent = await chain.sender.send(bogus);
  try {
    await sent.wait(5_000);
    assert.unreachable("wait() resolved for a reverted transaction");
  } catch (e) {
    assert.ok(isAppError(e));
    assert.match(e.message, "mined but reverted");
  }
  assert.is((await journal()).find((r) => r.hash === sent.hash)!.status, "reverted");
  assert.is(chain.sender.nextNonce(), nonce + 1);
});

test("a stuck transaction is re-priced under the same nonce; the bump is what gets mined", async () => {
  await chain.provider.send("evm_setAutomine", [false]);
  try {
    const sent = await chain.sender.send({ to: chain.addresses.token, data: mintData(env.trader.address, 5n), purpose: "mint" });
    const attempts = await waitUntil(async () => {
      const rows = (await journal()).filter((r) => r.nonce === sent.nonce && r.status === "sent");
      return rows.length >= 2 ? rows : undefined;
    }, { what: "a re-priced attempt", slowMs: 5_000 });
    await chain.provider.send("evm_mine", []);
    const mined = await sent.wait(5_000);
    const rows = (await journal()).filter((r) => r.nonce === sent.nonce);
    const winner = rows.find((r) => r.status === "confirmed")!;
    assert.is(mined.hash, winner.hash);
    assert.is.not(winner.hash, sent.hash, "the original, cheaper attempt was not mined");
    assert.is(winner.replaces, rows[0]!.id);
    assert.ok(rows.filter((r) => r.id !== winner.id).every((r) => r.status === "replaced" || r.status === "failed"));
    assert.ok(attempts!.length >= 2);
    const tx = await chain.provider.getTransaction(mined.hash);
    const orig = await chain.provider.getTransaction(sent.hash);
    assert.is(orig, null);
    assert.ok(tx!.maxFeePerGas! > 0n);
  } finally {
    await chain.provider.send("evm_setAutomine", [true]);
  }
});

test("after a restart the sender resumes its nonce from the chain and settles what was sent but not confirmed", async () => {
  await chain.provider.send("evm_setAutomine", [false]);
  const ctx = {
    provider: chain.provider, wallet: new Wallet(env.operatorKey), chainId: 31337n, chain: chain.key,
    store: env.store, log: silent, nowS: () => Math.floor(Date.now() / 1000),
    settings: { ...DEFAULT_SENDER_SETTINGS, pollMs: 50, bumpAfterMs: 60_000 },
  };
  // The facade's sender goes quiet (as if the daemon stopped); a second one plays the restarted daemon.
  const a = createTxSender(ctx);
  await a.start();
  const sent = await a.send({ to: chain.addresses.token, data: mintData(env.investor.address, 3n), purpose: "mint" });
  await a.stop();
  assert.is((await journal()).find((r) => r.hash === sent.hash)!.status, "sent");
  await chain.provider.send("evm_mine", []);
  await chain.provider.send("evm_setAutomine", [true]);
  const b = createTxSender(ctx);
  await b.start();
  assert.is(b.nextNonce(), sent.nonce + 1);
  await waitUntil(async () => (await journal()).find((r) => r.hash === sent.hash)!.status === "confirmed", { what: "the journal row settled" });
  const row = (await journal()).find((r) => r.hash === sent.hash)!;
  assert.ok(row.block_number! > 0 && row.block_time! > 0);
  await b.stop();
});

test("the facade's sender, left behind by another sender's nonce, resynchronises instead of failing", async () => {
  const stale = chain.sender.nextNonce();
  const r = await mintTo(chain, env.trader.address, 1n);
  const rows = (await journal()).filter((row) => row.nonce >= stale);
  // Nonce `stale`: the other sender's mint (confirmed) and this sender's refused attempt (failed).
  assert.equal(rows.map((row) => `${row.nonce - stale}:${row.status}`).sort(), ["0:confirmed", "0:failed", "1:confirmed"]);
  const failed = rows.find((row) => row.status === "failed")!;
  assert.is(failed.nonce, stale);
  assert.is(failed.error, "nonce already used");
  assert.is(rows.find((row) => row.hash === r.txHash)!.nonce, stale + 1);
  assert.is(chain.sender.nextNonce(), stale + 2);
});

/** The chain as a node that counts a mined transaction in the nonce before it serves the receipt. */
class LateReceipts extends JsonRpcProvider {
  readonly asked = new Map<string, number>();
  constructor(url: string, readonly lateFor: number) {
    super(url, 31337, { staticNetwork: true, cacheTimeout: -1, pollingInterval: 50 });
  }
  override async getTransactionReceipt(hash: string): Promise<TransactionReceipt | null> {
    const n = (this.asked.get(hash) ?? 0) + 1;
    this.asked.set(hash, n);
    return n <= this.lateFor ? null : super.getTransactionReceipt(hash);
  }
}

/** The chain as it is, counting the sender's looks that found `nonce` already used. */
class CountedLooks extends JsonRpcProvider {
  nonce = Infinity;
  sawUsed = 0;
  constructor(url: string) {
    super(url, 31337, { staticNetwork: true, cacheTimeout: -1, pollingInterval: 50 });
  }
  override async getTransactionCount(...args: Parameters<JsonRpcProvider["getTransactionCount"]>): Promise<number> {
    const n = await super.getTransactionCount(...args);
    if (args[1] === "latest" && n > this.nonce) this.sawUsed++;
    return n;
  }
}

const senderOn = (provider: JsonRpcProvider, takenGraceMs: number) => createTxSender({
  provider, wallet: new Wallet(env.operatorKey), chainId: 31337n, chain: chain.key,
  store: env.store, log: silent, nowS: () => Math.floor(Date.now() / 1000),
  settings: { ...DEFAULT_SENDER_SETTINGS, pollMs: 50, bumpAfterMs: 60_000, takenGraceMs, simulateWithGasLimit: false },
});

test("a nonce already used while the node has no receipt yet is waited for, not blamed on an unknown sender", async () => {
  const provider = new LateReceipts(chain.rpcUrl, 3);
  const s = senderOn(provider, 2_000);
  await s.start();
  try {
    const sent = await s.send({ to: chain.addresses.token, data: mintData(env.investor.address, 7n), gasLimit: 100_000n, purpose: "mint" });
    const mined = await sent.wait(10_000);
    assert.is(mined.hash, sent.hash);
    assert.ok(provider.asked.get(sent.hash)! > 3, "the receipt was asked for after the lag");
    assert.is((await journal()).find((r) => r.hash === sent.hash)!.status, "confirmed");
  } finally {
    await s.stop();
    provider.destroy();
  }
});

test("a nonce taken by a transaction the daemon did not send fails the flight, once the grace has passed", async () => {
  const provider = new CountedLooks(chain.rpcUrl);
  const s = senderOn(provider, 400);
  await s.start();
  await chain.provider.send("evm_setAutomine", [false]);
  try {
    const sent = await s.send({ to: chain.addresses.token, data: mintData(env.investor.address, 9n), gasLimit: 100_000n, purpose: "mint" });
    // Another holder of the operator key wins the nonce: ours leaves the pool, theirs is mined.
    await chain.provider.send("anvil_dropTransaction", [sent.hash]);
    const other = await new Wallet(env.operatorKey).signTransaction({
      chainId: 31337n, to: chain.addresses.token, data: mintData(env.trader.address, 1n), gasLimit: 100_000n, nonce: sent.nonce,
      maxFeePerGas: 10n ** 9n, maxPriorityFeePerGas: 1n, type: 2,
    });
    await chain.provider.send("eth_sendRawTransaction", [other]);
    provider.nonce = sent.nonce;
    await chain.provider.send("evm_mine", []);
    try {
      await sent.wait(10_000);
      assert.unreachable("the flight settled on a transaction it did not send");
    } catch (e) {
      assert.ok(isAppError(e), String(e));
      assert.is(e.code, "CHAIN_UNAVAILABLE");
      assert.match(e.message, `operator nonce ${sent.nonce} was used by a transaction the daemon did not send`);
    }
    // The first look that finds the nonce used starts the grace; only a later look may give up.
    assert.ok(provider.sawUsed >= 2, `given up at look ${provider.sawUsed} that saw the nonce used`);
    const row = (await journal()).find((r) => r.hash === sent.hash)!;
    assert.is(row.status, "replaced");
    assert.ok((await chain.provider.getTransactionReceipt(Transaction.from(other).hash!))!.status === 1);
  } finally {
    await chain.provider.send("evm_setAutomine", [true]);
    await s.stop();
    provider.destroy();
  }
});

test.run();
