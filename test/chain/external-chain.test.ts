// An external chain through the same facade: a JSON-RPC node the daemon does not own (here a bare
// Anvil archive node on loopback), the expected chain id checked, the contracts deployed once and found
// again from the record, or taken from configuration (factory checked, deployment block searched).
import { test } from "uvu";
import * as assert from "uvu/assert";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Wallet, encryptKeystoreJson, toQuantity } from "ethers";
import type { StartChainOptions } from "../../daemon/chain/chain.js";
import { startEmbeddedNode } from "../../daemon/chain/embedded-node.js";
import type { EmbeddedNode } from "../../daemon/chain/embedded-node.js";
import { readOperatorKeyFile } from "../../daemon/chain/operator-key.js";
import { findVault } from "../../daemon/db/vaults-repo.js";
import { isAppError } from "../../daemon/errors.js";
import { freePort } from "../helpers/util.js";
import { ensureArtifacts, newEnv, newVault, silent, startIndexed, type IndexedChain as Chain } from "./_support.js";
import type { Env } from "./_support.js";

let node: EmbeddedNode;
let env: Env;
let first: Chain;

test.before(async () => {
  await ensureArtifacts();
  env = await newEnv();
  // A node the daemon does not own: plain HTTP on loopback, as an external chain is reached.
  node = await startEmbeddedNode({ socketDir: join(env.dir, "external-node"), httpPort: await freePort(), genesisTime: Math.floor(Date.now() / 1000), archive: true });
  const operator = new Wallet(env.operatorKey).address;
  await node.rpc.request({ method: "anvil_setBalance", params: [operator, toQuantity(10n ** 21n)] });
});

test.after(async () => {
  await first?.stop();
  await node.stop();
  await env.remove();
});

const external = (over: Partial<NonNullable<StartChainOptions["external"]>> = {}) =>
  startIndexed({
    dataDir: env.dir, store: env.store, log: silent, operatorKey: env.operatorKey,
    external: { rpcUrl: node.url!, chainId: 31337, ...over }, shutdownSettleMs: 50,
  }, { confirmations: 0 });

test("a chain id other than the expected one is refused", async () => {
  try {
    await external({ chainId: 998 });
    assert.unreachable("started against the wrong chain");
  } catch (e) {
    assert.ok(isAppError(e) && e.code === "CHAIN_UNAVAILABLE" && /31337/.test(e.message), String(e));
  }
});

test("deploy-once: the first start deploys and records, the next one finds the record", async () => {
  first = await external();
  assert.is(first.kind, "external");
  assert.is(first.key, "external-31337");
  assert.is(first.rpcUrl, node.url!);
  assert.ok(existsSync(join(env.dir, "chain", "external-31337.json")));
  const created = await newVault(first, env);
  assert.ok(await findVault(env.store.db, created.vault), "written through at once");
  const addresses = first.addresses;
  const nonce = first.sender.nextNonce();
  await first.stop();
  first = await external();
  assert.equal(first.addresses, addresses);
  assert.is(first.sender.nextNonce(), nonce, "nothing was deployed again");
});

test("a configured factory is checked, and its deployment block found for the indexer", async () => {
  const env2 = await newEnv();
  try {
    // Same node, another daemon (another operator): it uses the first daemon's factory.
    const c = await startIndexed({
      dataDir: env2.dir, store: env2.store, log: silent, operatorKey: env2.operatorKey,
      external: { rpcUrl: node.url!, chainId: 31337, factory: first.addresses.factory },
    }, { confirmations: 0 });
    try {
      assert.equal(c.addresses, first.addresses);
      assert.is(c.deployBlock, first.deployBlock);
      const vaults = await env2.store.db.selectFrom("vaults").select("address").execute();
      assert.is(vaults.length, 1, "indexed the vault the first daemon created");
    } finally {
      await c.stop();
    }
    try {
      await startIndexed({
        dataDir: env2.dir, store: env2.store, log: silent, operatorKey: env2.operatorKey,
        external: { rpcUrl: node.url!, chainId: 31337, factory: Wallet.createRandom().address },
      });
      assert.unreachable("accepted a factory address without code");
    } catch (e) {
      assert.ok(isAppError(e) && /no contract/.test(e.message), String(e));
    }
  } finally {
    await env2.remove();
  }
});

test("operator key files: hex, or an encrypted keystore with its password", async () => {
  const wallet = Wallet.createRandom();
  const hexPath = join(env.dir, "op.hex");
  const jsonPath = join(env.dir, "op.json");
  writeFileSync(hexPath, wallet.privateKey.slice(2));
  writeFileSync(jsonPath, await encryptKeystoreJson({ address: wallet.address, privateKey: wallet.privateKey }, "pw", { scrypt: { N: 2 ** 4 } }));
  assert.is((await readOperatorKeyFile(hexPath)).address, wallet.address);
  assert.is((await readOperatorKeyFile(jsonPath, "pw")).address, wallet.address);
  try {
    await readOperatorKeyFile(jsonPath, "wrong");
    assert.unreachable("decrypted with a wrong password");
  } catch (e) {
    assert.ok(isAppError(e) && e.code === "INVALID_INPUT");
  }
});

test.run();
