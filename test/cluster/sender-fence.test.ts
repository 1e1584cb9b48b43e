// The operator's sender is fenced by its lease (chain/tx-flight.ts, chain/tx-relay.ts,
// cluster/cluster.ts): daemons in one process, each on its own pool of one PostgreSQL database,
// with real Anvil, leases on the database's clock with a short life and rounds run by hand, so a
// daemon "stalls" by not running its rounds. A sender whose lease was taken signs nothing; a daemon
// whose renewal is a lease's time old holds nothing before its next round, so two never both say
// they send; a relayed request whose sender stalls mid-request is mined once, by the next sender.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { mkdirSync } from "node:fs";
import { createServer, type IncomingMessage } from "node:http";
import { join } from "node:path";
import { JsonRpcProvider, Wallet, toQuantity } from "ethers";
import { sql } from "kysely";
import pino from "pino";
import type { Chain } from "../../daemon/chain/chain.js";
import { readTokenBalance } from "../../daemon/chain/contracts.js";
import { startEmbeddedNode, type EmbeddedNode } from "../../daemon/chain/embedded-node.js";
import { isSenderFenced } from "../../daemon/chain/tx-flight.js";
import { serveRelayedRequests } from "../../daemon/chain/tx-relay.js";
import { DEFAULT_SENDER_SETTINGS, createTxSender } from "../../daemon/chain/tx-sender.js";
import { createCluster, type Cluster } from "../../daemon/cluster/cluster.js";
import { findTxRequest, insertTxRequest, moveTxRequest } from "../../daemon/db/chain-repo.js";
import { senderLeaseKey } from "../../daemon/db/cluster-repo.js";
import { openStore } from "../../daemon/db/database.js";
import type { Store } from "../../daemon/db/store.js";
import { joinCluster } from "../../daemon/shared-store.js";
import { journalRows } from "../helpers/store-reads.js";
import { only, openTestStore, storeKind, type TestStore } from "../helpers/stores.js";
import { freePort, waitUntil } from "../helpers/util.js";
import { ensureArtifacts, mintTo, newEnv, silent, startIndexed, type Env } from "../chain/_support.js";

// Long enough that a loaded machine's round (several statements) stays well inside a lease.
const TTL = 1_500;
const VAULT = `0x${"1".padStart(40, "0")}`;

let node: EmbeddedNode;
let env: Env;
let db: TestStore;
const pools: Store[] = [];
const cleanup: Array<() => Promise<void>> = [];

test.before(async () => {
  if (storeKind !== "postgres") return;
  await setUp().catch((e: unknown) => {
    console.error("set-up failed:", e); // uvu does not show an error thrown in a hook
    throw e;
  });
});

async function setUp(): Promise<void> {
  await ensureArtifacts();
  env = await newEnv();
  db = await openTestStore();
  await env.store.close();
  env.store = db.store;
  node = await startEmbeddedNode({ socketDir: join(env.dir, "node"), httpPort: await freePort(), genesisTime: Math.floor(Date.now() / 1000), archive: true });
}

test.after(async () => {
  if (storeKind !== "postgres") return;
  for (const c of cleanup.reverse()) await c().catch(() => undefined);
  await node.stop();
  for (const s of pools) await s.close();
  await env.remove();
});

/** A daemon's own pool on the one database. */
async function pool(): Promise<Store> {
  const s = await openStore(db.target);
  pools.push(s);
  return s;
}

/** Leases on the database's clock; a round only when the test runs one (tick). */
function member(store: Store, id: string, chainKey: string, vaults: string[] = []): Cluster {
  const c = createCluster({
    db: store.db, work: store, now: () => store.now(), id, info: {}, chainKey, activeVaults: async () => vaults,
    settings: { leaseTtlMs: TTL, tickMs: 3_600_000 }, log: silent,
  });
  cleanup.push(() => c.stop());
  return c;
}

async function senderLease(chainKey: string): Promise<{ holder: string; epoch: number; expires_at: number } | undefined> {
  const r = await sql<{ holder: string; epoch: number; expires_at: number }>`
    select holder, epoch, expires_at from leases where key = ${senderLeaseKey(chainKey)}`.execute(db.store.db);
  const row = r.rows[0];
  return row && { holder: row.holder, epoch: Number(row.epoch), expires_at: Number(row.expires_at) };
}

/** Runs `b`'s rounds until it holds the sender's lease (once the stalled holder's has expired): its epoch. */
const takeOver = (b: Cluster) =>
  waitUntil(async () => {
    await b.tick();
    return b.senderEpoch();
  }, { what: `${b.id} takes the sender's lease` });

only("postgres", test)("a sender whose lease was taken signs nothing: its send rejects, no journal row, no transaction", async () => {
  const chainKey = "fence-a";
  const a = member(await pool(), "a", chainKey);
  const b = member(await pool(), "b", chainKey);
  await a.tick();
  await b.tick();
  const epoch = a.senderEpoch()!;
  assert.ok(epoch !== undefined && !b.isSender());

  const wallet = Wallet.createRandom();
  await node.rpc.request({ method: "anvil_setBalance", params: [wallet.address, toQuantity(10n ** 20n)] });
  const provider = new JsonRpcProvider(node.url!, 31337, { staticNetwork: true, cacheTimeout: -1 });
  cleanup.push(async () => provider.destroy());
  const sender = createTxSender({
    provider, wallet: wallet as unknown as Wallet, chainId: 31337n, chain: chainKey, store: db.store, log: silent,
    nowS: () => Math.floor(Date.now() / 1000), settings: { ...DEFAULT_SENDER_SETTINGS, pollMs: 50 },
    lease: { key: senderLeaseKey(chainKey), holder: "a", epoch },
  });
  cleanup.push(() => sender.stop());
  await sender.start();
  const transfer = { to: Wallet.createRandom().address, value: 1n, purpose: "transfer" };
  await (await sender.send(transfer)).wait();
  const [first] = await journalRows(db.store.db, chainKey);
  assert.equal([first!.sender, first!.sender_epoch], ["a", epoch], "the journal says who signed, under which epoch");

  // a stalls (no rounds); b takes the lease once it has expired by the database's clock.
  const taken = await takeOver(b);
  assert.ok(taken! > epoch);
  for (let i = 0; i < 2; i++) {
    try {
      await sender.send(transfer);
      assert.unreachable("a sender without its lease signed");
    } catch (e) {
      assert.ok(isSenderFenced(e) && (e as { retryable: boolean }).retryable, String(e));
    }
  }
  assert.is((await journalRows(db.store.db, chainKey)).length, 1, "no journal row under the lost epoch");
  assert.is(await provider.getTransactionCount(wallet.address, "pending"), 1, "no transaction reached the node");

  // Nor does it claim the others' requests: the queued one is left untouched for the sender.
  const now = Date.now();
  await insertTxRequest(db.store.db, {
    id: "for-the-sender", requester: "c", to: transfer.to, data: "0x", value: "1", gas_limit: null, nonce: null, purpose: "transfer",
    status: "queued", tx_hash: null, tx_nonce: null, error: null, created_at: now, updated_at: now,
  });
  let said = "";
  const log = pino({ level: "warn" }, { write: (line: string) => void (said += line) });
  const server = serveRelayedRequests({
    db: db.store.db, work: db.store, chain: chainKey, requester: "a", provider, address: wallet.address, clock: Date.now, log,
    settings: { pollMs: 20, claimTimeoutMs: 30_000, confirmTimeoutMs: 30_000 },
  }, sender, { key: senderLeaseKey(chainKey), holder: "a", epoch });
  server.start();
  await waitUntil(() => said.includes("no longer serving"), { what: "the stale sender stops serving" });
  await server.stop();
  const request = await findTxRequest(db.store.db, "for-the-sender");
  assert.equal([request!.status, request!.sent_epoch, Number(request!.updated_at)], ["queued", null, now], "never claimed");
  await moveTxRequest(db.store.db, "for-the-sender", "queued", { status: "abandoned", updated_at: Date.now() });
});

only("postgres", test)("a daemon whose renewal is a lease's time old holds nothing before its next round: two never both say they send", async () => {
  const chainKey = "fence-b";
  const a = member(await pool(), "a", chainKey, [VAULT]);
  const b = member(await pool(), "b", chainKey, [VAULT]);
  const heard: Array<boolean> = [];
  a.onRound(() => heard.push(a.isSender()));
  await a.tick();
  await b.tick();
  assert.ok(a.isSender() && a.holds(VAULT) && !b.isSender());

  // a stalls. Its listeners hear that it holds nothing without a round of its own.
  await waitUntil(() => heard[heard.length - 1] === false, { what: "a's listeners told its leases lapsed" });
  assert.is(heard.length, 2, "one round, then the lapse");
  assert.is(a.senderEpoch(), undefined);
  assert.is(a.holds(VAULT), false);
  assert.is(a.epochOf(VAULT), undefined);
  assert.equal(await a.fence([VAULT]), new Set());
  assert.equal([a.status().vaultsHeld, a.status().sender], [0, false], "what /healthz reports");

  // The sending moves back and forth, each time to the one that runs its rounds while the other
  // stalls. At every look, what a daemon says it holds the database says too, and only one sends.
  let [running, stalled] = [b, a];
  for (let turn = 0; turn < 4; turn++) {
    await waitUntil(async () => {
      await running.tick();
      const lease = await senderLease(chainKey);
      for (const d of [a, b]) {
        if (d.isSender()) assert.equal([lease?.holder, lease?.epoch], [d.id, d.senderEpoch()], `${d.id} says it sends: the database agrees`);
      }
      assert.ok(!(a.isSender() && b.isSender()), "two daemons say they send");
      return running.isSender();
    }, { what: `${running.id} sends` });
    assert.is(stalled.isSender(), false);
    await stalled.tick(); // it wakes: it finds the lease another's
    assert.is(stalled.isSender(), false);
    [running, stalled] = [stalled, running];
  }
});

/** A JSON-RPC relay to the node that can hold every call: a daemon whose chain calls stall. */
async function pausable(target: string) {
  let gate: Promise<void> | undefined;
  let open = () => {};
  const body = async (req: IncomingMessage) => {
    let s = "";
    for await (const chunk of req) s += chunk;
    return s;
  };
  const server = createServer((req, res) => {
    void (async () => {
      const text = await body(req);
      while (gate) await gate;
      const r = await fetch(target, { method: "POST", headers: { "Content-Type": "application/json" }, body: text });
      res.writeHead(r.status, { "Content-Type": "application/json" });
      res.end(await r.text());
    })().catch(() => res.destroy());
  });
  const port = await freePort();
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${port}`,
    pause: () => void (gate = new Promise<void>((r) => (open = r))),
    resume: () => {
      gate = undefined;
      open();
    },
    close: () => new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    }),
  };
}

only("postgres", test)("a relayed request whose sender stalls mid-request is mined once, by the next sender", async () => {
  await node.rpc.request({ method: "anvil_setBalance", params: [new Wallet(env.operatorKey).address, toQuantity(10n ** 21n)] });
  const proxy = await pausable(node.url!);
  cleanup.push(() => proxy.close());
  const daemon = async (id: string, rpcUrl: string): Promise<{ chain: Chain; cluster: Cluster }> => {
    const dataDir = join(env.dir, id);
    mkdirSync(dataDir, { recursive: true });
    const store = await pool();
    const chain = await startIndexed({
      dataDir, store, log: silent, operatorKey: env.operatorKey,
      external: { rpcUrl, chainId: 31337 }, sender: { pollMs: 50 },
      shutdownSettleMs: 50, shared: { requester: id, lock: (name, fn) => store.exclusive(name, fn), relay: { pollMs: 20 } },
    }, { confirmations: 0, pollMs: 100 });
    cleanup.push(() => chain.stop());
    const cluster = member(store, id, chain.key);
    await joinCluster({ cluster, share: { holds: cluster.holds, fence: cluster.fence, refresh: cluster.tick } }, chain, chain.indexer, silent, () => {});
    return { chain, cluster };
  };
  const a = await daemon("a", proxy.url); // deploys, then holds the sender's lease
  const b = await daemon("b", node.url!);
  const first = a.cluster.senderEpoch()!;
  await waitUntil(() => a.chain.sending!.epoch() === first, { what: "a sends under its lease" });
  assert.is(b.chain.sending!.sending(), false);

  // a claims b's request, then stalls in the middle of sending it (its chain calls held, no rounds).
  proxy.pause();
  const to = Wallet.createRandom().address;
  const minted = mintTo(b.chain, to, 7n);
  const claimed = await waitUntil(async () => (await sql<{ id: string; sent_epoch: number }>`
    select id, sent_epoch from tx_requests where status = 'claimed' and purpose = 'mint'`.execute(db.store.db)).rows[0], { what: "a claims the request" });
  assert.is(Number(claimed!.sent_epoch), first, "the claim records the claimer's epoch");

  const second = await takeOver(b.cluster);
  await minted;
  assert.is(b.chain.sending!.epoch(), second);
  // a wakes and goes on with the request it was sending.
  proxy.resume();
  await a.chain.sending!.demote(); // after the send it was in has ended
  assert.is(a.chain.sending!.sending(), false);

  assert.is(await readTokenBalance(b.chain.provider, { token: b.chain.addresses.token, account: to }), 7n, "minted once");
  const signed = (await journalRows(db.store.db, b.chain.key)).filter((r) => r.request_id === claimed!.id);
  assert.equal(signed.map((r) => [r.sender, r.sender_epoch, r.status]), [["b", second, "confirmed"]], "signed once, by the new sender's epoch");
  const row = (await sql<{ status: string; sent_epoch: number }>`select status, sent_epoch from tx_requests where id = ${claimed!.id}`.execute(db.store.db)).rows[0]!;
  assert.equal([row.status, Number(row.sent_epoch)], ["sent", second]);
  const nonces = (await journalRows(db.store.db, b.chain.key)).filter((r) => r.status === "confirmed").map((r) => r.nonce);
  assert.is(new Set(nonces).size, nonces.length, "no operator nonce mined twice");
});

test.run();
