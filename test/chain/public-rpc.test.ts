// The embedded chain is the daemon's alone. A real daemon publishes in /healthz only its public
// proxy's URL; that URL refuses the calls that control the node or make it sign or send (each one,
// also inside a batch, with -32601), and passes reads and a wallet's own signed transaction. Anvil's
// own TCP port answers nobody here: every listening socket of the Anvil process (found through
// /proc/<pid>/fd and /proc/<pid>/net/tcp*) is tried from this process and none runs
// anvil_impersonateAccount. Its IPC socket sits in a 0700 directory of the data directory.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { cpSync, existsSync, readFileSync, readdirSync, readlinkSync, rmSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { JsonRpcProvider, Wallet, toQuantity } from "ethers";
import { readTokenBalance } from "../../daemon/chain/contracts.js";
import { startEmbeddedNode } from "../../daemon/chain/embedded-node.js";
import { startTestDaemon, type TestDaemon } from "../helpers/daemon.js";
import { tempDir } from "../helpers/util.js";
import { ensureArtifacts } from "./_support.js";

let d: TestDaemon;
let rpcUrl: string;

test.before(async () => {
  await ensureArtifacts();
  d = await startTestDaemon({ startOracle: false });
  rpcUrl = (await d.http.get("/healthz")).body.data.chain.rpcUrl;
});

test.after(async () => {
  await d?.close();
});

async function rpc(url: string, body: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

const call = (id: unknown, method: string, params: unknown[] = []) => ({ jsonrpc: "2.0", id, method, params });
const head = async () => Number((await rpc(rpcUrl, call(1, "eth_blockNumber"))).body.result);

test("/healthz publishes the public proxy's loopback URL, and the daemon's own chain reaches the same chain", async () => {
  assert.match(rpcUrl, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.is(rpcUrl, d.daemon.chain.rpcUrl);
  assert.is(await head(), await d.daemon.chain.provider.getBlockNumber());
});

const operator = () => d.daemon.chain.operator;
const refusedCalls = () => [
  call(1, "anvil_impersonateAccount", [operator()]),
  call(2, "evm_mine"),
  call(3, "eth_sendTransaction", [{ from: operator(), to: operator(), value: "0x1" }]),
  call(4, "personal_sign", ["0x68656c6c6f", operator()]),
  call(5, "eth_sign", [operator(), "0x68656c6c6f"]),
  call(6, "eth_signTypedData_v4", [operator(), "{}"]),
  call(7, "hardhat_setBalance", [operator(), "0x1"]),
  call(8, "debug_traceTransaction", ["0x" + "00".repeat(32)]),
  // Anvil runs an unsigned transaction from any address: the operator's, without its key.
  call(9, "eth_sendUnsignedTransaction", [{ from: operator(), to: operator(), value: "0x1" }]),
  call(10, "anvil_setRpcUrl", ["http://127.0.0.1:1"]),
];

test("node-control, signing and unsigned-send calls are refused with -32601 in a 200, each under its id, and change nothing", async () => {
  const before = await head();
  for (const c of refusedCalls()) {
    const r = await rpc(rpcUrl, c);
    assert.is(r.status, 200, c.method);
    assert.is(r.body.id, c.id, c.method);
    assert.is(r.body.error?.code, -32601, `${c.method}: ${JSON.stringify(r.body)}`);
    assert.not.ok("result" in r.body, c.method);
  }
  assert.is(await head(), before, "nothing was mined");
});

test("a batch mixing allowed and refused calls is answered per element, in order; a notification gets no answer", async () => {
  const before = await head();
  const r = await rpc(rpcUrl, [
    call("a", "eth_chainId"),
    call("b", "anvil_impersonateAccount", [operator()]),
    call("c", "eth_blockNumber"),
    call("d", "evm_mine"),
    { jsonrpc: "2.0", method: "evm_mine", params: [] }, // a notification: refused, and silent
    { jsonrpc: "2.0", id: "f", params: [] }, // no method
  ]);
  assert.is(r.status, 200);
  assert.equal(r.body.map((x: { id: unknown }) => x.id), ["a", "b", "c", "d", "f"]);
  assert.is(r.body[0].result, "0x7a69");
  assert.is(r.body[1].error.code, -32601);
  assert.is(Number(r.body[2].result), before);
  assert.is(r.body[3].error.code, -32601);
  assert.is(r.body[4].error.code, -32600);
  assert.is(await head(), before, "evm_mine was not run, neither asked nor as a notification");
});

test("reads pass: eth_chainId, eth_blockNumber, eth_call (the token's balance) through an ethers provider", async () => {
  const outside = new JsonRpcProvider(rpcUrl, undefined, { staticNetwork: true });
  try {
    assert.is(Number(await outside.send("eth_chainId", [])), 31337);
    assert.is(await outside.getBlockNumber(), await d.daemon.chain.provider.getBlockNumber());
    const { token } = d.daemon.chain.addresses;
    const supply = await outside.call({ to: token, data: "0x18160ddd" }); // totalSupply()
    assert.is(supply, await d.daemon.chain.provider.call({ to: token, data: "0x18160ddd" }));
    assert.is(await readTokenBalance(outside, { token, account: operator() }), await readTokenBalance(d.daemon.chain.provider, { token, account: operator() }));
  } finally {
    outside.destroy();
  }
});

test("a wallet's own signed transaction goes through (eth_sendRawTransaction), gas and fees read through the proxy", async () => {
  const wallet = Wallet.createRandom();
  // Funding is a privileged call: the daemon's own transport, not the public URL.
  await d.daemon.chain.provider.send("anvil_setBalance", [wallet.address, toQuantity(10n ** 20n)]);
  const outside = new JsonRpcProvider(rpcUrl, 31337, { staticNetwork: true, pollingInterval: 50 });
  try {
    const payee = Wallet.createRandom().address;
    const sent = await wallet.connect(outside).sendTransaction({ to: payee, value: 12_345n });
    const receipt = await sent.wait();
    assert.is(receipt?.status, 1);
    assert.is(await outside.getBalance(payee), 12_345n);
  } finally {
    outside.destroy();
  }
});

test("callers sharing the node's IPC connection with the same ids each get their own answer", async () => {
  const wallets = Array.from({ length: 12 }, () => Wallet.createRandom().address);
  await Promise.all(wallets.map((w, i) => d.daemon.chain.provider.send("anvil_setBalance", [w, toQuantity(1_000 + i)])));
  const answers = await Promise.all(wallets.map((w) => rpc(rpcUrl, call(7, "eth_getBalance", [w, "latest"]))));
  assert.equal(answers.map((a) => [a.body.id, Number(a.body.result)]), wallets.map((_, i) => [7, 1_000 + i]));
});

test("the proxy bounds what it reads: a body over 2 MiB gets 413 (announced or chunked), a GET 405, a body that is not JSON -32700", async () => {
  const big = await fetch(rpcUrl, { method: "POST", headers: { "content-type": "application/json" }, body: "x".repeat(2 * 1024 * 1024 + 1) });
  assert.is(big.status, 413);
  assert.is((await big.json()).error.code, -32600);
  // The same without a length announced (chunked): counted as it comes.
  const chunk = new TextEncoder().encode("x".repeat(256 * 1024));
  const stream = new ReadableStream<Uint8Array>({
    start(c) {
      for (let i = 0; i < 12; i++) c.enqueue(chunk);
      c.close();
    },
  });
  const chunked = await fetch(rpcUrl, { method: "POST", body: stream, duplex: "half" } as RequestInit);
  assert.is(chunked.status, 413);
  assert.is((await fetch(rpcUrl)).status, 405);
  const bad = await fetch(rpcUrl, { method: "POST", body: "{not json" });
  assert.is(bad.status, 200);
  assert.is((await bad.json()).error.code, -32700);
  assert.is((await rpc(rpcUrl, [])).body.error.code, -32600, "an empty batch is an invalid request");
});

/** The TCP ports `pid` listens on: its socket inodes (/proc/<pid>/fd) found among LISTEN rows of its /proc/<pid>/net/tcp*. */
function listeningPorts(pid: number): number[] {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const inode = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
      if (inode) inodes.add(inode);
    } catch {
      /* closed meanwhile */
    }
  }
  const ports: number[] = [];
  for (const table of ["tcp", "tcp6"]) {
    for (const line of readFileSync(`/proc/${pid}/net/${table}`, "utf8").trim().split("\n").slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols[3] === "0A" && inodes.has(cols[9]!)) ports.push(parseInt(cols[1]!.split(":")[1]!, 16));
    }
  }
  return ports;
}

/** Hosts of this machine's loopback on which `port` answers anvil_impersonateAccount with a result. */
async function impersonationAnswered(port: number): Promise<string[]> {
  const hits: string[] = [];
  for (const host of ["127.0.0.1", "[::1]"]) {
    try {
      const res = await fetch(`http://${host}:${port}`, {
        method: "POST", headers: { "content-type": "application/json" },
        body: JSON.stringify(call(1, "anvil_impersonateAccount", [operator()])),
      });
      const body = JSON.parse(await res.text()) as { result?: unknown };
      if ("result" in body) hits.push(`${host}:${port}`);
    } catch {
      /* refused, or not JSON-RPC: nothing answered it */
    }
  }
  return hits;
}

test("the probe is not blind: an Anvil serving HTTP in our network namespace is found and answers impersonation", async () => {
  const dir = tempDir("tradevault-exposed-");
  const exposed = await startEmbeddedNode({ socketDir: dir.path, httpPort: 0, genesisTime: Math.floor(Date.now() / 1000) });
  try {
    const ports = listeningPorts(exposed.pid);
    assert.equal(ports, [exposed.tcpPort]);
    assert.equal(await impersonationAnswered(exposed.tcpPort), [`127.0.0.1:${exposed.tcpPort}`]);
  } finally {
    await exposed.stop();
    dir.remove();
  }
});

test("no TCP port of the daemon's Anvil answers anvil_impersonateAccount from here: it lives in its own network namespace", async () => {
  const embedded = d.daemon.chain.embedded!;
  const pid = embedded.pid();
  assert.ok(embedded.node().isolated, "this machine refused a network namespace: Anvil's TCP port is open to local processes (docs/chain.md)");
  assert.is.not(readlinkSync(`/proc/${pid}/ns/net`), readlinkSync("/proc/self/ns/net"));
  const ports = listeningPorts(pid);
  assert.ok(ports.length > 0, "Anvil listens on some TCP port (in its namespace): the probe looks at the right process");
  for (const port of ports) assert.equal(await impersonationAnswered(port), [], `port ${port}`);
});

test("the IPC socket is in a 0700 directory inside the data directory", () => {
  const { ipcPath } = d.daemon.chain.embedded!.node();
  assert.ok(ipcPath.startsWith(`${d.dataDir}/`), ipcPath);
  assert.ok(statSync(ipcPath).isSocket());
  assert.is(statSync(dirname(ipcPath)).mode & 0o777, 0o700);
});

test("a node that stopped leaves no socket file behind, so a plain copy of the data directory works", async () => {
  const dir = tempDir("tradevault-socket-");
  try {
    const node = await startEmbeddedNode({ socketDir: `${dir.path}/node`, genesisTime: Math.floor(Date.now() / 1000) });
    assert.ok(existsSync(node.ipcPath));
    await node.stop();
    assert.not.ok(existsSync(node.ipcPath));
    cpSync(dir.path, `${dir.path}-copy`, { recursive: true });
  } finally {
    rmSync(`${dir.path}-copy`, { recursive: true, force: true });
    dir.remove();
  }
});

test("during a compaction (a new Anvil) calls to the public URL wait for the new node instead of failing; after it, refusals hold", async () => {
  const embedded = d.daemon.chain.embedded!;
  const pid = embedded.pid();
  const before = await head();
  let done = false;
  const compaction = embedded.compact().finally(() => (done = true));
  const answers: Array<{ status: number; body: any }> = [];
  while (!done) answers.push(await rpc(rpcUrl, call(answers.length, "eth_blockNumber")));
  await compaction;
  assert.is.not(embedded.pid(), pid);
  assert.ok(answers.length >= 1);
  for (const a of answers) assert.equal([a.status, Number(a.body.result)], [200, before], JSON.stringify(a.body));
  assert.is(await head(), before);
  assert.is((await rpc(rpcUrl, call(1, "anvil_impersonateAccount", [operator()]))).body.error.code, -32601);
  for (const port of listeningPorts(embedded.pid())) assert.equal(await impersonationAnswered(port), [], `port ${port}`);
});

test.run();
