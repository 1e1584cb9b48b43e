// Agent keys: typed data for the master wallet, signer check, relay, sealed storage.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { approveAgent, faucet, randomWallet, signIn, startTestDaemon } from "../helpers/daemon.js";
import { sql } from "kysely";
import { rows } from "../helpers/stores.js";

test("GET /api/agent hands out approveAgent typed data; a signature by another key is refused; the master's is relayed", async () => {
  const d = await startTestDaemon();
  try {
    const wallet = randomWallet();
    const { token } = await signIn(d.http, wallet);
    await faucet(d, wallet.address, 1000);
    const s = (await d.http.get("/api/agent", { token })).body.data;
    assert.is(s.approved, false);
    assert.match(s.agentAddress, /^0x[0-9a-fA-F]{40}$/);
    const td = s.approval.typedData;
    assert.is(td.primaryType, "HyperliquidTransaction:ApproveAgent");
    assert.equal(td.domain, { name: "HyperliquidSignTransaction", version: "1", chainId: 421614, verifyingContract: "0x0000000000000000000000000000000000000000" });
    assert.ok(td.types.EIP712Domain, "ready for eth_signTypedData_v4");
    assert.is(td.message.agentAddress, s.agentAddress.toLowerCase());
    assert.match(td.message.agentName, /^tradevault valid_until \d{13}$/);
    assert.is(td.message.hyperliquidChain, "Testnet");
    assert.is(td.message.nonce, String(s.approval.nonce));

    // the same agent is offered again until approved (created once, on demand)
    assert.is((await d.http.get("/api/agent", { token })).body.data.agentAddress, s.agentAddress);

    const { EIP712Domain: _d, ...types } = td.types;
    const forged = await randomWallet().signTypedData(td.domain, types, td.message);
    const refused = await d.http.post("/api/agent/approve", { nonce: s.approval.nonce, signature: forged }, { token });
    assert.is(refused.status, 403);
    const tampered = await d.http.post("/api/agent/approve", { nonce: s.approval.nonce + 1, signature: await wallet.signTypedData(td.domain, types, td.message) }, { token });
    assert.is(tampered.status, 403, "the daemon rebuilds the action from the nonce it is given");

    const approved = await approveAgent(d.http, token, wallet);
    assert.is(approved.approved, true);
    assert.is(approved.agentAddress, s.agentAddress);
    const after = (await d.http.get("/api/agent", { token })).body.data;
    assert.is(after.approved, true);
    assert.is(after.approval, undefined);
    assert.ok(Math.abs(after.validUntil - (Date.now() / 1000 + 90 * 86400)) < 3600);

    // the private key is sealed at rest
    const [row] = await rows(d.daemon.store, sql<{ sealed_key: string }>`select sealed_key from agents`);
    assert.match(row!.sealed_key, /^v1:/);
    assert.not.match(row!.sealed_key, /[0-9a-f]{64}/);
  } finally {
    await d.close();
  }
});

test("an account that never deposited is told so when it approves an agent (422 INSUFFICIENT_BALANCE), not told to approve", async () => {
  const d = await startTestDaemon();
  try {
    const wallet = randomWallet();
    const { token } = await signIn(d.http, wallet);
    const s = (await d.http.get("/api/agent", { token })).body.data;
    const { EIP712Domain: _d, ...types } = s.approval.typedData.types;
    const signature = await wallet.signTypedData(s.approval.typedData.domain, types, s.approval.typedData.message);
    const r = await d.http.post("/api/agent/approve", { nonce: s.approval.nonce, signature }, { token });
    assert.is(r.status, 422, JSON.stringify(r.body));
    assert.is(r.body.error.code, "INSUFFICIENT_BALANCE");
    assert.match(r.body.error.message, /never deposited/);
    assert.not.match(r.body.error.message, /agent approve/);
  } finally {
    await d.close();
  }
});

test("an agent near its expiry is rotated: a new address is offered, never the old one", async () => {
  const d = await startTestDaemon();
  try {
    const wallet = randomWallet();
    const { token } = await signIn(d.http, wallet);
    await faucet(d, wallet.address, 1000);
    const first = await approveAgent(d.http, token, wallet);
    d.clock.advance(84 * 86_400_000); // 6 days before the 90-day expiry
    const { token: fresh } = await signIn(d.http, wallet);
    const s = (await d.http.get("/api/agent", { token: fresh })).body.data;
    assert.is(s.approved, false);
    assert.is.not(s.agentAddress, first.agentAddress);
    // the old agent still trades until the new one is approved
    const trade = await d.http.post("/api/trade", { symbol: "BTC", side: "buy", size: 0.001, price: 50000 }, { token: fresh });
    assert.is(trade.status, 200, JSON.stringify(trade.body));
  } finally {
    await d.close();
  }
});

test.run();
