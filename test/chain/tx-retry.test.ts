// The operator's sender retries a read before signing when the node fails in a way worth retrying
// (a 5xx), and gives up after its tries; a proxy in front of the chain's RPC fails chosen calls and
// counts them, so the attempts are counted, not guessed.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Interface, JsonRpcProvider, Wallet } from "ethers";
import type { Chain } from "../../daemon/chain/chain.js";
import { DEFAULT_SENDER_SETTINGS, createTxSender } from "../../daemon/chain/tx-sender.js";
import { isAppError } from "../../daemon/errors.js";
import { ensureArtifacts, newEnv, silent, start } from "./_support.js";
import type { Env } from "./_support.js";

let env: Env;
let chain: Chain;
let proxy: Server;
let proxyUrl: string;
/** Requests of `method` still to fail with HTTP 503, and how many were failed so far. */
const failing = { method: "", left: 0, served: 0 };

test.before(async () => {
  await ensureArtifacts();
  env = await newEnv();
  chain = await start(env, { shutdownSettleMs: 50 });
  proxy = createServer((req, res) => {
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", async () => {
      const call = JSON.parse(body) as { method: string };
      if (call.method === failing.method && failing.left > 0) {
        failing.left -= 1;
        failing.served += 1;
        res.writeHead(503).end("unavailable");
        return;
      }
      const upstream = await fetch(chain.rpcUrl, { method: "POST", headers: { "content-type": "application/json" }, body });
      res.writeHead(upstream.status, { "content-type": "application/json" }).end(await upstream.text());
    });
  });
  await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", () => r()));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});

test.after(async () => {
  proxy.close();
  await chain.stop();
  await env.remove();
});

const mint = new Interface(["function mint(address to, uint256 amount)"]);

async function sendThroughProxy(failures: number) {
  const provider = new JsonRpcProvider(proxyUrl, 31337, { staticNetwork: true, cacheTimeout: -1, batchMaxCount: 1 });
  const sender = createTxSender({
    provider, wallet: new Wallet(env.operatorKey), chainId: 31337n, chain: chain.key, store: env.store, log: silent,
    nowS: () => Math.floor(Date.now() / 1000),
    settings: { ...DEFAULT_SENDER_SETTINGS, pollMs: 50, readAttempts: 3, readRetryMs: 10 },
  });
  await sender.start();
  Object.assign(failing, { method: "eth_estimateGas", left: failures, served: 0 });
  try {
    const sent = await sender.send({ to: chain.addresses.token, data: mint.encodeFunctionData("mint", [env.investor.address, 1n]), purpose: "mint" });
    return await sent.wait(10_000);
  } finally {
    failing.left = 0;
    await sender.stop();
    provider.destroy();
  }
}

test("a 5xx on a read before signing is tried again: two failures, then the transaction goes out", async () => {
  const mined = await sendThroughProxy(2);
  assert.is(failing.served, 2, "both failures were met, and the third try went through");
  assert.ok(mined.receipt.status === 1);
});

test("after its tries the sender gives up with CHAIN_UNAVAILABLE, and signs nothing", async () => {
  const nonce = await chain.provider.getTransactionCount(chain.operator, "latest");
  try {
    await sendThroughProxy(5);
    assert.unreachable("the send went through a node that kept failing");
  } catch (e) {
    assert.ok(isAppError(e) && e.code === "CHAIN_UNAVAILABLE", String(e));
  }
  assert.is(failing.served, 3, "exactly three tries");
  assert.is(await chain.provider.getTransactionCount(chain.operator, "pending"), nonce, "nothing was sent");
});

test.run();
