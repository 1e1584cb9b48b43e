// A stalled sender, woken, signs nothing (chain/tx-flight.ts, cluster/cluster.ts): three built
// `tradevaultd` processes on one PostgreSQL database, one Anvil chain and one `--sim-only` exchange,
// oracle every 2 s (a lease lives 3 s), vaults on every daemon so balance writes are relayed to the
// sender all the time. The sender is SIGSTOPped until another has taken the sending over and signed
// under its new epoch, then SIGCONTed, three times. A /healthz asked while it was stopped is answered
// first thing on waking: it sends no longer and holds no vault. Afterwards, from the chain: no nonce
// was contended by two transactions of ours, and no relayed request was mined twice.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { JsonRpcProvider, Transaction, Wallet, toQuantity } from "ethers";
import { sql } from "kysely";
import { startEmbeddedNode, type EmbeddedNode } from "../../daemon/chain/embedded-node.js";
import { openStore } from "../../daemon/db/database.js";
import type { Store } from "../../daemon/db/store.js";
import { httpClient, randomWallet, signIn, signTyped, type HttpClient, type Party } from "../helpers/daemon.js";
import { freshDatabase } from "../helpers/postgres.js";
import { journalRows } from "../helpers/store-reads.js";
import { only } from "../helpers/stores.js";
import { freePort, tempDir, waitUntil, within } from "../helpers/util.js";

const started = Date.now();
const phase = (what: string) => void (process.env.DEBUG_STALL && console.log(`${((Date.now() - started) / 1000).toFixed(1)} s ${what}`));

const BIN = fileURLToPath(new URL("../../bin/tradevaultd", import.meta.url));
const INTERVAL_S = 2;
const VAULTS = 6;
const PAUSES = 3;
const tmp = tempDir("tradevault-stall-");
const children: ChildProcess[] = [];
let node: EmbeddedNode | undefined;
let store: Store | undefined;

interface Proc {
  url: string;
  port: number;
  http: HttpClient;
  child: ChildProcess;
  log(): string;
}

async function run(args: string[], env: Record<string, string> = {}): Promise<Proc> {
  const port = await freePort();
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("TRADEVAULT_")));
  const child = spawn(process.execPath, [BIN, ...args, "--port", String(port), "--log-level", "info"], { env: { ...clean, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  let out = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  return { url: `http://127.0.0.1:${port}`, port, http: httpClient(`http://127.0.0.1:${port}`), child, log: () => out };
}

const answers = async (url: string, path: string, p: Proc) =>
  waitUntil(async () => {
    if (p.child.exitCode !== null) throw new Error(`exited ${p.child.exitCode}:\n${p.log().slice(-3000)}`);
    return (await fetch(`${url}${path}`)).status < 500;
  }, { slowMs: 120_000, what: `${url}${path}` });

test.after(async () => {
  for (const c of children) {
    if (c.exitCode === null && c.signalCode === null) {
      c.kill("SIGCONT");
      c.kill("SIGKILL");
    }
  }
  await store?.close();
  await node?.stop();
  tmp.remove();
});

interface ClusterReport {
  daemon: string;
  vaultsHeld: number;
  sender: boolean;
  liveDaemons: number;
}

const report = async (p: Proc): Promise<ClusterReport> => (await p.http.get("/healthz")).body.data.cluster as ClusterReport;

/** A /healthz request written to the daemon's socket now (the kernel takes it while the process is stopped); its answer. */
async function askNow(p: Proc): Promise<() => Promise<ClusterReport>> {
  const socket = connect(p.port, "127.0.0.1");
  await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
  let raw = "";
  socket.on("data", (d) => (raw += d));
  const ended = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  await new Promise<void>((resolve, reject) => socket.write("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", (e) => (e ? reject(e) : resolve())));
  return async () => {
    await ended;
    const body = raw.slice(raw.indexOf("\r\n\r\n") + 4);
    // Chunked or not, the JSON document is the one object in the body.
    return JSON.parse(body.slice(body.indexOf("{"), body.lastIndexOf("}") + 1)).data.cluster as ClusterReport;
  };
}

only("postgres", test)("a sender stopped past its lease and woken signs nothing and claims nothing: no request mined twice, no nonce contended", async () => {
  const databaseUrl = await freshDatabase();
  store = await openStore(databaseUrl);

  node = await startEmbeddedNode({ socketDir: join(tmp.path, "anvil"), httpPort: await freePort(), genesisTime: Math.floor(Date.now() / 1000), archive: true });
  const operator = Wallet.createRandom();
  const keyFile = join(tmp.path, "operator.key");
  writeFileSync(keyFile, operator.privateKey, { mode: 0o600 });
  await node.rpc.request({ method: "anvil_setBalance", params: [operator.address, toQuantity(10n ** 21n)] });

  const simPort = await freePort();
  const sim = await run(["--sim-only", "--sim-port", String(simPort), "--data-dir", join(tmp.path, "sim"), "--sim-feed", "static", "--sim-ws-connections-per-ip", "100"]);
  const simUrl = `http://127.0.0.1:${simPort}`;
  await answers(simUrl, "/info", sim);
  // Each daemon's sessions named, to tell whether a stopped one is inside a transaction.
  const urlOf = (i: number) => {
    const u = new URL(databaseUrl);
    u.searchParams.set("application_name", `d${i}`);
    return u.toString();
  };
  const flags = (i: number) => [
    "--data-dir", join(tmp.path, `d${i}`), "--database-url", urlOf(i), "--rpc-url", node!.url!, "--chain-id", "31337",
    "--exchange-url", simUrl, "--operator-key-file", keyFile, "--oracle-interval", String(INTERVAL_S), "--stale-after", "120",
    "--no-price-stream", "--sign-in-rate-limit", "100000", "--order-rate-limit", "100000",
    "--read-cache", "0", "--read-weight-per-user", "1000000", "--read-weight-all-users", "1000000",
  ];
  for (let i = 0; i < 3; i++) mkdirSync(join(tmp.path, `d${i}`), { recursive: true });
  const daemons = await Promise.all([0, 1, 2].map((i) => run(flags(i), { TRADEVAULT_SECRET: "one secret for every daemon" })));
  for (const d of daemons) await answers(d.url, "/healthz", d);

  const trader = await partyAt(daemons[0]!.http);
  for (let i = 0; i < VAULTS; i++) {
    const http = daemons[i % 3]!.http;
    const investor = await partyAt(http);
    const faucet = await fetch(`${simUrl}/sim/faucet`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ user: investor.address, amount: "10000" }) });
    assert.is(faucet.status, 200, await faucet.text());
    await vaultAt(http, investor, trader);
  }
  const settled = () => waitUntil(async () => {
    const cs = await Promise.all(daemons.map(report));
    return cs.every((c) => c.liveDaemons === 3 && c.vaultsHeld > 0) && cs.filter((c) => c.sender).length === 1
      && cs.reduce((n, c) => n + c.vaultsHeld, 0) === VAULTS ? cs : undefined;
  }, { slowMs: 60_000, what: "the vaults shared out among three daemons, one sender" });

  phase("vaults created");
  for (let pause = 0, tries = 0; pause < PAUSES; tries++) {
    assert.ok(tries < 40, `${pause} of ${PAUSES} stops made outside a transaction in ${tries} tries`);
    const cs = await settled();
    const index = cs!.findIndex((c) => c.sender);
    const victim = daemons[index]!;
    const before = await senderEpoch(store);
    victim.child.kill("SIGSTOP");
    // Stopped inside a transaction, it would hold its locks (every writer's, today) until its
    // connection died, and the others could not take anything over: that is another test's. Again.
    if (await inTransaction(store, `d${index}`)) {
      victim.child.kill("SIGCONT");
      continue;
    }
    // Another sends, and has signed since, a third daemon's relayed writes among it.
    const mark = await lastJournalId(store);
    const taken = await waitUntil(async () => {
      const epoch = await senderEpoch(store!);
      if (epoch === before) return undefined;
      const signed = await sql<{ n: number }>`select count(*) as n from tx_journal where id > ${mark} and request_id is not null`.execute(store!.db);
      return Number(signed.rows[0]!.n) > 0 ? epoch : undefined;
    }, { slowMs: 60_000, what: "another daemon sends under a new epoch" });
    assert.ok(taken! > before);
    const answer = await askNow(victim);
    victim.child.kill("SIGCONT");
    const woken = await within(answer(), 30_000, "the woken daemon's /healthz answer").catch((e: Error) => {
      throw new Error(`${e.message}; its log:\n${victim.log().split("\n").slice(-40).join("\n")}`);
    });
    phase(`pause ${pause} (try ${tries}): ${JSON.stringify(woken)}`);
    pause++;
    assert.equal([woken.sender, woken.vaultsHeld], [false, 0], `woken, ${woken.daemon} claims neither the sending nor its old vaults`);
  }
  await settled();
  phase("settled");
  // A few cycles more, so a woken daemon had every chance to sign what it had claimed or queued.
  const mark = await journalCount(store);
  await waitUntil(async () => (await journalCount(store!)) >= mark + 6, { slowMs: 60_000, what: "more operator transactions" });

  phase("checking the chain");
  const provider = new JsonRpcProvider(node.url!, 31337, { staticNetwork: true });
  try {
    // The chain's height, then the journal: a transaction mined by then was journaled before.
    const height = await provider.getBlockNumber();
    const rows = await journalRows(store.db, "external-31337");
    const mined = await operatorTransactions(provider, operator.address, height);
    // A row of ours at a mined nonce is that transaction, one of its re-pricings, or a signature
    // the node refused for another reason; never another transaction that found the nonce taken.
    for (const row of rows) {
      const tx = mined.get(row.nonce);
      if (!tx) continue; // still in flight, or mined after the height read
      const same = rawPayload(row.raw) === tx.payload;
      assert.ok(same || (row.status === "failed" && row.error !== "nonce already used"), `nonce ${row.nonce}: two transactions of ours (${row.purpose} ${row.status} ${row.error ?? ""}, by ${row.sender}@${row.sender_epoch})`);
      assert.not.equal(row.error, "nonce taken by an unknown transaction");
    }
    // Every transaction of ours on the chain is journaled, and no relayed request is in two of them.
    const byHash = new Map(rows.map((r) => [r.hash, r]));
    const perRequest = new Map<string, string[]>();
    for (const [nonce, tx] of mined) {
      const row = byHash.get(tx.hash);
      assert.ok(row, `nonce ${nonce}: ${tx.hash} mined and not journaled`);
      if (row.request_id !== null) perRequest.set(row.request_id, [...(perRequest.get(row.request_id) ?? []), `${tx.hash} (nonce ${nonce}, ${row.sender}@${row.sender_epoch})`]);
    }
    assert.ok(perRequest.size > 0);
    for (const [id, txs] of perRequest) assert.is(txs.length, 1, `request ${id} mined ${txs.length} times: ${txs.join(", ")}`);
  } finally {
    provider.destroy();
  }
});

/** Whether a session of `name` has a transaction open (or a statement running). */
async function inTransaction(s: Store, name: string): Promise<boolean> {
  const r = await sql<{ n: number }>`select count(*) as n from pg_stat_activity where application_name = ${name} and xact_start is not null`.execute(s.db);
  return Number(r.rows[0]!.n) > 0;
}

async function senderEpoch(s: Store): Promise<number> {
  const r = await sql<{ epoch: number }>`select epoch from leases where key = 'sender:external-31337'`.execute(s.db);
  return Number(r.rows[0]?.epoch ?? 0);
}

async function lastJournalId(s: Store): Promise<number> {
  return Number((await sql<{ id: number | null }>`select max(id) as id from tx_journal`.execute(s.db)).rows[0]!.id ?? 0);
}

async function journalCount(s: Store): Promise<number> {
  return Number((await sql<{ n: number }>`select count(*) as n from tx_journal`.execute(s.db)).rows[0]!.n);
}

const payloadOf = (to: string | null, data: string) => `${(to ?? "").toLowerCase()}:${data.toLowerCase()}`;

function rawPayload(raw: string): string {
  const tx = Transaction.from(raw);
  return payloadOf(tx.to, tx.data);
}

/** The operator's mined transactions, by nonce (the chain has one per nonce). */
async function operatorTransactions(provider: JsonRpcProvider, operator: string, height: number): Promise<Map<number, { hash: string; payload: string }>> {
  const out = new Map<number, { hash: string; payload: string }>();
  for (let n = 0; n <= height; n++) {
    const block = await provider.getBlock(n, true);
    for (const tx of block?.prefetchedTransactions ?? []) {
      if (tx.from.toLowerCase() === operator.toLowerCase()) out.set(tx.nonce, { hash: tx.hash, payload: payloadOf(tx.to, tx.data) });
    }
  }
  return out;
}

async function partyAt(http: HttpClient): Promise<Party> {
  const wallet = randomWallet();
  const { token } = await signIn(http, wallet);
  return { wallet, token, address: wallet.address };
}

async function vaultAt(http: HttpClient, investor: Party, trader: Party): Promise<string> {
  const body = {
    investor: investor.address, trader: trader.address, initialBalance: "10000", maxDrawdown: 50, dailyDrawdown: 40,
    dealDeadline: Math.floor(Date.now() / 1000) + 30 * 86_400, profitShare: { trader: 20, investor: 80 },
  };
  const created = await http.post("/api/proposals", body, { token: trader.token });
  assert.is(created.status, 200, JSON.stringify(created.body));
  const p = created.body.data.proposal;
  const first = await http.post(`/api/proposals/${p.id}/accept`, { signature: await signTyped(trader.wallet, p.typedData) }, { token: trader.token });
  assert.is(first.status, 200, JSON.stringify(first.body));
  const done = await http.post(`/api/proposals/${p.id}/accept`, { signature: await signTyped(investor.wallet, p.typedData) }, { token: investor.token });
  assert.is(done.status, 200, JSON.stringify(done.body));
  const deployed = (done.body.data.proposal.vaultAddress as string | null) ?? await waitUntil(async () => {
    const r = await http.get(`/api/proposals/${p.id}`, { token: trader.token });
    return r.body.data?.proposal?.vaultAddress as string | undefined;
  }, { slowMs: 120_000, what: `proposal ${p.id} deployed` });
  return deployed!;
}

test.run();
