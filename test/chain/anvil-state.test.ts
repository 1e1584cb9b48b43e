// The snapshot compaction reads Anvil's internal dump layout, pinned to one Anvil version: this test
// fails when the installed Anvil is another version or its dump changed shape, and checks that a
// trimmed dump still loads into a fresh node with the same accounts, nonces and head.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { Wallet, toQuantity } from "ethers";
import { anvilBinary } from "../../daemon/chain/anvil-binary.js";
import { PINNED_ANVIL_VERSION, compactState, decodeDump, encodeState, layoutProblem, loadStateParam, parseState } from "../../daemon/chain/anvil-state.js";
import { startEmbeddedNode } from "../../daemon/chain/embedded-node.js";
import type { EmbeddedNode } from "../../daemon/chain/embedded-node.js";
import { tempDir } from "../helpers/util.js";

const dir = tempDir("tradevault-anvil-state-");
const nodes: EmbeddedNode[] = [];
test.after(async () => {
  for (const n of nodes) await n.stop();
  dir.remove();
});

const node = async () => {
  const n = await startEmbeddedNode({ socketDir: `${dir.path}/node-${nodes.length}`, genesisTime: Math.floor(Date.now() / 1000) });
  nodes.push(n);
  return n;
};

test("the installed Anvil is the version the compaction was written for", () => {
  assert.is(anvilBinary().version, PINNED_ANVIL_VERSION, "a new Anvil: check its dump layout, then move PINNED_ANVIL_VERSION");
});

test("a dump with 40 blocks of transactions has the pinned layout; trimmed, it loads with the same state", async () => {
  const a = await node();
  const w = Wallet.createRandom();
  await a.rpc.request({ method: "anvil_setBalance", params: [w.address, toQuantity(10n ** 24n)] });
  for (let nonce = 0; nonce < 40; nonce++) {
    const raw = await w.signTransaction({
      to: Wallet.createRandom().address, value: 1n, nonce, gasLimit: 21_000n, maxFeePerGas: 10n ** 9n, maxPriorityFeePerGas: 10n ** 9n, chainId: 31337, type: 2,
    });
    await a.rpc.request({ method: "eth_sendRawTransaction", params: [raw] });
  }
  // Anvil answers a sent transaction before its automined block is sealed: wait for the 40th block,
  // or the dump can be taken one block short. No deadline of our own: the runner's file timeout bounds
  // a node that never mines, and a slow machine only waits longer.
  while (Number(await a.rpc.request({ method: "eth_blockNumber" })) < 40) await new Promise((r) => setTimeout(r, 20));
  const full = parseState(decodeDump((await a.rpc.request({ method: "anvil_dumpState" })) as string));
  assert.is(layoutProblem(full), undefined);
  assert.is(full.best_block_number, 40);
  const { state, trimmed } = compactState(full, 35);
  assert.ok(trimmed);
  assert.equal(state.blocks.map((b) => Number(b.header.number)).sort((x, y) => x - y), [35, 36, 37, 38, 39, 40]);
  assert.is(state.transactions.length, 6);
  const gz = encodeState(state);
  assert.ok(gz.length < encodeState(full).length / 3, `trimmed ${gz.length} bytes`);

  const b = await node();
  await b.rpc.request({ method: "anvil_loadState", params: [loadStateParam(gz)] });
  assert.is(Number(await b.rpc.request({ method: "eth_blockNumber" })), 40);
  assert.is(Number(await b.rpc.request({ method: "eth_getTransactionCount", params: [w.address, "latest"] })), 40);
  assert.is(await b.rpc.request({ method: "eth_getBalance", params: [w.address, "latest"] }), await a.rpc.request({ method: "eth_getBalance", params: [w.address, "latest"] }));
  // A receipt in a kept block is still served.
  const kept = state.transactions[0]! as unknown as { info: { transaction_hash: string } };
  assert.ok(await b.rpc.request({ method: "eth_getTransactionReceipt", params: [kept.info.transaction_hash] }));
});

test("a dump of another shape is kept whole rather than trimmed", () => {
  const odd = { best_block_number: 3, accounts: {}, blocks: [], transactions: [], block: {}, historical_states: null, new_field: 1 };
  const c = compactState(odd as never, 1);
  assert.is(c.trimmed, false);
  assert.match(c.problem!, /top-level keys/);
});

test.run();
