// The daemon's snapshots of the embedded chain: a restart loads the newest whole snapshot and replays
// only the journal after it; a torn newest snapshot falls back to the older one, both torn to a full
// replay, every time with the same contract state; two are kept; /healthz-facing age is reported.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { readdirSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { IndexedChain as Chain } from "./_support.js";
import { readTokenBalance, readVaultState, updateBalances } from "../../daemon/chain/contracts.js";
import { snapshotDir } from "../../daemon/chain/snapshots.js";
import { snapshotsOf } from "../../daemon/db/chain-repo.js";
import { USDC, chainNow, ensureArtifacts, mintTo, newEnv, newVault, reopenStore, start } from "./_support.js";
import type { Env } from "./_support.js";

let env: Env;
let chain: Chain | undefined;
let vault = "";

test.before(async () => {
  await ensureArtifacts();
  env = await newEnv();
});

test.after(async () => {
  await chain?.stop();
  await env.remove();
});

async function stateOf(c: Chain) {
  return {
    vault: await readVaultState(c.provider, { vault }),
    investor: await readTokenBalance(c.provider, { token: c.addresses.token, account: env.investor.address }),
    operatorEth: await c.provider.getBalance(c.operator),
    nonce: await c.provider.getTransactionCount(c.operator),
  };
}

/** A reading the vault takes: stamped newer than the one it holds (the contract skips any other). */
async function reading(c: Chain, balance: bigint) {
  const held = Number((await readVaultState(c.provider, { vault })).observedAt);
  const observedAt = Math.max(await chainNow(c), held + 1);
  await updateBalances(c.signer, { factory: c.addresses.factory, readings: [{ vault, balance, observedAt }] });
}

async function restart(): Promise<Chain> {
  await chain!.stop();
  chain = undefined;
  await reopenStore(env);
  chain = await start(env, { shutdownSettleMs: 50 });
  return chain;
}

let before: Awaited<ReturnType<typeof stateOf>>;

test("snapshots are recorded with their nonce and height; two are kept", async () => {
  chain = await start(env, { embedded: { port: 0, snapshotIntervalS: 3_600 } });
  assert.is(chain.embedded!.snapshotAgeSeconds(), null);
  await mintTo(chain, env.investor.address, 1_000n * USDC);
  vault = (await newVault(chain, env)).vault;
  for (let i = 0; i < 3; i++) {
    await reading(chain, 10_000n * USDC + BigInt(i));
    await chain.embedded!.snapshot();
  }
  const rows = await snapshotsOf(env.store.db, chain.key);
  assert.is(rows.length, 2);
  assert.equal(readdirSync(snapshotDir(env.dir)).sort(), rows.map((r) => r.file).sort());
  assert.is(rows[0]!.operator_nonce, await chain.provider.getTransactionCount(chain.operator));
  assert.is(rows[0]!.height, await chain.provider.getBlockNumber());
  assert.ok(rows[0]!.journal_id! > rows[1]!.journal_id!);
  assert.ok((chain.embedded!.snapshotAgeSeconds() ?? 99) <= 2);
});

test("a clean stop takes a last snapshot; the restart loads it with the same state", async () => {
  await reading(chain!, 10_100n * USDC);
  before = await stateOf(chain!);
  const nonce = await chain!.provider.getTransactionCount(chain!.operator);
  const c = await restart();
  assert.ok(c.rebuilt);
  assert.is((await snapshotsOf(env.store.db, "31337"))[0]!.operator_nonce, nonce);
  assert.equal(await stateOf(c), before);
});

test("a torn newest snapshot falls back to the older one plus the journal", async () => {
  await reading(chain!, 10_200n * USDC);
  before = await stateOf(chain!);
  await chain!.stop();
  chain = undefined;
  const [newest, older] = await snapshotsOf(env.store.db, "31337");
  truncateSync(join(snapshotDir(env.dir), newest!.file), Math.floor(newest!.bytes / 2)); // as a crash mid-write would
  await reopenStore(env);
  chain = await start(env, { shutdownSettleMs: 50 });
  assert.equal(await stateOf(chain), before);
  assert.ok(older);
});

test("both snapshots unusable: a full replay of the journal gives the same state", async () => {
  await reading(chain!, 10_300n * USDC);
  before = await stateOf(chain!);
  await chain!.stop();
  chain = undefined;
  for (const r of await snapshotsOf(env.store.db, "31337")) writeFileSync(join(snapshotDir(env.dir), r.file), "not a snapshot");
  await reopenStore(env);
  chain = await start(env, { shutdownSettleMs: 50 });
  assert.equal(await stateOf(chain), before);
});

test("a compaction reloads the node with the same state and a new Anvil, and writes go on", async () => {
  const c = chain!;
  const pid = c.embedded!.pid();
  before = await stateOf(c);
  await c.embedded!.compact();
  assert.is.not(c.embedded!.pid(), pid);
  assert.equal(await stateOf(c), before);
  await reading(c, 10_400n * USDC);
  assert.is((await readVaultState(c.provider, { vault })).balance, 10_400n * USDC);
});

test.run();
