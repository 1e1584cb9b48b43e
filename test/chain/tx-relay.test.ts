// Several daemons, one operator key (chain/tx-relay.ts, chain/sender-switch.ts): two chain modules
// on one store and one external node, each with its own data directory, as two daemons are. Only the
// promoted one signs; the other's transactions are handed over through the database and come back
// mined. Nonces never collide, also when the sender changes; a request claimed by a sender that died
// is sent once (or found sent) by the next; one nobody claims is given up and never sent later.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { Wallet, toQuantity } from "ethers";
import type { SharedSending } from "../../daemon/chain/chain.js";
import { startEmbeddedNode, type EmbeddedNode } from "../../daemon/chain/embedded-node.js";
import { readTokenBalance } from "../../daemon/chain/contracts.js";
import { findTxRequest, insertTxRequest } from "../../daemon/db/chain-repo.js";
import { isAppError } from "../../daemon/errors.js";
import { openStore } from "../../daemon/db/database.js";
import type { Store } from "../../daemon/db/store.js";
import { journalRows } from "../helpers/store-reads.js";
import { openTestStore, storeKind, type TestStore } from "../helpers/stores.js";
import { freePort, waitUntil } from "../helpers/util.js";
import { USDC, ensureArtifacts, mintTo, newEnv, silent, startIndexed, type Env, type IndexedChain as Chain } from "./_support.js";

let node: EmbeddedNode;
let env: Env;
let a: Chain;
let b: Chain;
let db: TestStore;
const stores: Store[] = [];


/** Each daemon with its own data directory and its own connection to the one database. */
async function daemon(id: string, relay: SharedSending["relay"] = {}): Promise<Chain> {
  const dataDir = join(env.dir, id);
  mkdirSync(dataDir, { recursive: true });
  // SQLite: one connection per process (better-sqlite3 blocks the thread while another holds the lock).
  const store = storeKind === "sqlite" ? db.store : await openStore(db.target);
  if (store !== db.store) stores.push(store);
  return startIndexed({
    dataDir, store, log: silent, operatorKey: env.operatorKey,
    external: { rpcUrl: node.url!, chainId: 31337 }, sender: { pollMs: 50 },
    shutdownSettleMs: 50, shared: { requester: id, lock: (name, fn) => store.exclusive(name, fn), relay: { pollMs: 20, ...relay } },
  }, { confirmations: 0, pollMs: 100 });
}

test.before(async () => {
  await ensureArtifacts();
  env = await newEnv();
  db = await openTestStore();
  await env.store.close(); // the run's store instead of newEnv's SQLite file
  env.store = db.store;
  node = await startEmbeddedNode({ socketDir: join(env.dir, "node"), httpPort: await freePort(), genesisTime: Math.floor(Date.now() / 1000), archive: true });
  await node.rpc.request({ method: "anvil_setBalance", params: [new Wallet(env.operatorKey).address, toQuantity(10n ** 21n)] });
  [a, b] = await Promise.all([daemon("a"), daemon("b")]);
});

test.after(async () => {
  await a?.stop();
  await b?.stop();
  await node.stop();
  for (const s of stores) await s.close();
  await env.remove();
});

test("two daemons starting together deploy once and find the same contracts", async () => {
  assert.equal(a.addresses, b.addresses);
  const deploys = (await journalRows(env.store.db, a.key)).filter((r) => r.purpose.startsWith("deploy:"));
  assert.is(deploys.length, 3, "token, implementation, factory: once");
  assert.is([a, b].filter((c) => c.sending!.sending()).length, 1, "the deploying daemon sends; the other relays");
});

test("the relaying daemon's transactions are signed by the sender, journaled with their request, and mined", async () => {
  const [sender, relayer] = a.sending!.sending() ? [a, b] : [b, a];
  const to = Wallet.createRandom().address;
  const mints = await Promise.all([
    ...Array.from({ length: 5 }, () => mintTo(relayer, to, 1n * USDC)),
    ...Array.from({ length: 5 }, () => mintTo(sender, to, 1n * USDC)),
  ]);
  assert.is(mints.length, 10);
  assert.is(await readTokenBalance(a.provider, { token: a.addresses.token, account: to }), 10n * USDC);
  const rows = (await journalRows(env.store.db, a.key)).filter((r) => r.purpose === "mint");
  assert.is(rows.length, 10);
  assert.is(rows.filter((r) => r.request_id !== null).length, 5, "five came in by the relay");
  const nonces = rows.map((r) => r.nonce).sort((x, y) => x - y);
  assert.equal(nonces, Array.from({ length: 10 }, (_, i) => nonces[0]! + i), "consecutive nonces, none twice");
  assert.ok(rows.every((r) => r.status === "confirmed"));
});

test("the sender changes: the new one resumes the nonce, and a request the old one claimed is sent once", async () => {
  const [old, next] = a.sending!.sending() ? [a, b] : [b, a];
  await old.sending!.demote();
  const before = (await journalRows(env.store.db, a.key)).length;
  const now = Date.now();
  // The old sender claimed this one and died before signing it: never signed, so it is sent again.
  const data = (await import("ethers")).Interface.from(["function mint(address,uint256)"])
    .encodeFunctionData("mint", [Wallet.createRandom().address, 1n]);
  await insertTxRequest(env.store.db, {
    id: "orphan", requester: "gone", to: a.addresses.token, data, value: null, gas_limit: null, nonce: null, purpose: "mint",
    status: "claimed", tx_hash: null, tx_nonce: null, error: null, created_at: now, updated_at: now,
  });
  await next.sending!.promote();
  const orphan = await waitUntil(async () => {
    const r = await findTxRequest(env.store.db, "orphan");
    return r?.status === "sent" ? r : undefined;
  }, { what: "the orphaned request sent" });
  const to = Wallet.createRandom().address;
  await mintTo(old, to, 2n * USDC); // the demoted daemon now relays
  assert.is(await readTokenBalance(a.provider, { token: a.addresses.token, account: to }), 2n * USDC);
  const rows = (await journalRows(env.store.db, a.key)).slice(before);
  assert.is(rows.length, 2);
  assert.is(rows.filter((r) => r.request_id === "orphan").length, 1, "the orphan was signed once");
  assert.is(rows[0]!.nonce, Number(orphan!.tx_nonce));
  assert.is(rows[1]!.nonce, rows[0]!.nonce + 1);
});

test("with no sender a request is given up (retryable) and never sent afterwards", async () => {
  await a.sending!.demote();
  await b.sending!.demote();
  const c = await daemon("c", { claimTimeoutMs: 300 });
  const before = (await journalRows(env.store.db, a.key)).length;
  try {
    await mintTo(c, Wallet.createRandom().address, 1n);
    assert.unreachable("sent with no sender");
  } catch (e) {
    assert.ok(isAppError(e) && e.code === "CHAIN_UNAVAILABLE" && e.retryable, String(e));
  } finally {
    await c.stop();
  }
  await a.sending!.promote();
  await mintTo(a, Wallet.createRandom().address, 1n); // the sender works, and has served its queue by now
  const rows = (await journalRows(env.store.db, a.key)).slice(before);
  assert.is(rows.length, 1, "only a's own mint: the abandoned request was not sent");
});

test.run();
