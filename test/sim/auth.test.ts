// Who may act: signatures recovered over the canonical action, accounts and their agents (approved by
// the master with the real SDK, named, expiring), and the per-signer nonce rules.
import { ApiRequestError } from "@nktkas/hyperliquid";
import { ApproveAgentTypes } from "@nktkas/hyperliquid/api/exchange";
import { signL1Action, signUserSignedAction } from "@nktkas/hyperliquid/signing";
import { Wallet } from "ethers";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { fundedWallet, postJson, startSim, type SimHarness } from "./_support.js";

let h: SimHarness;
let offsetMs = 0;
const simNow = () => Date.now() + offsetMs;

test.before(async () => {
  h = await startSim({ clock: simNow, nonces: { keep: 3 } });
});
test.after(async () => {
  await h.close();
});

const NOOP = { type: "noop" };

async function signedNoop(wallet: Wallet, nonce: number, extra: Record<string, unknown> = {}) {
  const signature = await signL1Action({ wallet, action: NOOP, nonce, isTestnet: true });
  return { action: NOOP, nonce, signature, ...extra };
}

async function exchangeError(call: Promise<unknown>): Promise<string> {
  try {
    await call;
  } catch (e) {
    if (e instanceof ApiRequestError) return e.message;
    throw e;
  }
  throw new Error("expected the exchange to refuse");
}

test("an approveAgent signed by the SDK is accepted; the agent then trades for its master", async () => {
  const master = await fundedWallet(h.sim);
  const agent = Wallet.createRandom();
  const until = simNow() + 3_600_000;
  await h.exchange(master).approveAgent({ agentAddress: agent.address as `0x${string}`, agentName: `bot valid_until ${until}` });
  const listed = await h.info.extraAgents({ user: master.address as `0x${string}` });
  assert.equal(listed, [{ address: agent.address.toLowerCase(), name: "bot", validUntil: until }]);
  const res = await h.exchange(new Wallet(agent.privateKey)).noop();
  assert.equal(res, { status: "ok", response: { type: "default" } });
  // The unnamed agent (agentName null on the wire) is accepted too, and is not an "extra" agent.
  await h.exchange(master).approveAgent({ agentAddress: Wallet.createRandom().address as `0x${string}` });
  assert.is((await h.info.extraAgents({ user: master.address as `0x${string}` })).length, 1);
});

test("python-style approveAgent: agentName deleted after signing with \"\", any signatureChainId", async () => {
  const master = await fundedWallet(h.sim);
  const agent = Wallet.createRandom();
  const nonce = Date.now();
  const action: Record<string, unknown> = {
    type: "approveAgent", signatureChainId: "0x66eee", hyperliquidChain: "Testnet",
    agentAddress: agent.address.toLowerCase(), agentName: "", nonce,
  };
  const signature = await signUserSignedAction({ wallet: master, action: action as any, types: ApproveAgentTypes });
  delete action.agentName;
  const res = await postJson(h.sim.url, "/exchange", { action, nonce, signature });
  assert.equal(res.json, { status: "ok", response: { type: "default" } });
  const viaAgent = await postJson(h.sim.url, "/exchange", await signedNoop(new Wallet(agent.privateKey), Date.now(), { vaultAddress: null, expiresAfter: null }));
  assert.equal(viaAgent.json, { status: "ok", response: { type: "default" } });
});

test("an unapproved agent, a stranger and a tampered action are unknown signers", async () => {
  const master = await fundedWallet(h.sim);
  const stranger = Wallet.createRandom();
  const msg = await exchangeError(h.exchange(new Wallet(stranger.privateKey)).noop());
  assert.is(msg, `User or API Wallet ${stranger.address.toLowerCase()} does not exist.`);

  const order = { type: "order", orders: [{ a: 0, b: true, p: "30000", s: "0.001", r: false, t: { limit: { tif: "Gtc" } } }], grouping: "na" };
  const nonce = Date.now();
  const signature = await signL1Action({ wallet: master, action: order, nonce, isTestnet: true });
  const tampered = { ...order, orders: [{ ...order.orders[0], p: "30001" }] };
  const res = await postJson(h.sim.url, "/exchange", { action: tampered, nonce, signature });
  assert.is(res.json.status, "err");
  assert.match(res.json.response, /^User or API Wallet 0x[0-9a-f]{40} does not exist\.$/);
  assert.not.match(res.json.response, master.address.toLowerCase());
  const flipped = { ...signature, s: signature.s.replace(/.$/, (c) => (c === "0" ? "1" : "0")) };
  const res2 = await postJson(h.sim.url, "/exchange", { action: order, nonce, signature: flipped });
  assert.is(res2.json.status, "err");
  assert.not.match(res2.json.response, master.address.toLowerCase());
});

test("signed for mainnet (source a) does not recover on the testnet sim", async () => {
  const master = await fundedWallet(h.sim);
  const nonce = Date.now();
  const signature = await signL1Action({ wallet: master, action: NOOP, nonce, isTestnet: false });
  const res = await postJson(h.sim.url, "/exchange", { action: NOOP, nonce, signature });
  assert.not.match(res.json.response, master.address.toLowerCase());
});

test("an expired agent can no longer act", async () => {
  const master = await fundedWallet(h.sim);
  const agent = Wallet.createRandom();
  await h.exchange(master).approveAgent({ agentAddress: agent.address as `0x${string}`, agentName: `short valid_until ${simNow() + 60_000}` });
  const agentClient = h.exchange(new Wallet(agent.privateKey));
  await agentClient.noop();
  offsetMs += 120_000;
  try {
    const msg = await exchangeError(agentClient.noop());
    assert.is(msg, `User or API Wallet ${agent.address.toLowerCase()} does not exist.`);
    assert.equal(await h.info.extraAgents({ user: master.address as `0x${string}` }), []);
  } finally {
    offsetMs -= 120_000;
  }
});

test("approving again under the same name replaces the previous agent", async () => {
  const master = await fundedWallet(h.sim);
  const first = new Wallet(Wallet.createRandom().privateKey);
  const second = new Wallet(Wallet.createRandom().privateKey);
  await h.exchange(master).approveAgent({ agentAddress: first.address as `0x${string}`, agentName: "desk" });
  await h.exchange(master).approveAgent({ agentAddress: second.address as `0x${string}`, agentName: "desk" });
  const listed = await h.info.extraAgents({ user: master.address as `0x${string}` });
  assert.equal(listed.map((a) => a.address), [second.address.toLowerCase()]);
  assert.match(await exchangeError(h.exchange(first).noop()), /does not exist/);
  await h.exchange(second).noop();
  const faucetToAgent = await postJson(h.sim.url, "/sim/faucet", { user: second.address, amount: 10 });
  assert.is(faucetToAgent.status, 400, "an agent address cannot become an account");
  const other = await fundedWallet(h.sim);
  const taken = await exchangeError(h.exchange(other).approveAgent({ agentAddress: second.address as `0x${string}`, agentName: "mine" }));
  assert.match(taken, /already used/, "an agent address serves one account only");
});

test("user-signed actions only by a funded master: agents and strangers are refused", async () => {
  const master = await fundedWallet(h.sim);
  const agent = new Wallet(Wallet.createRandom().privateKey);
  await h.exchange(master).approveAgent({ agentAddress: agent.address as `0x${string}`, agentName: "a1" });
  const byAgent = await exchangeError(h.exchange(agent).approveAgent({ agentAddress: Wallet.createRandom().address as `0x${string}`, agentName: "a2" }));
  assert.is(byAgent, `Must deposit before performing actions. User: ${agent.address.toLowerCase()}`);
  const stranger = new Wallet(Wallet.createRandom().privateKey);
  const byStranger = await exchangeError(h.exchange(stranger).approveAgent({ agentAddress: agent.address as `0x${string}`, agentName: "x" }));
  assert.match(byStranger, /^Must deposit before performing actions/);
});

test("approveAgent for the other network is refused", async () => {
  const master = await fundedWallet(h.sim);
  const nonce = Date.now();
  const action = {
    type: "approveAgent", signatureChainId: "0x66eee" as const, hyperliquidChain: "Mainnet",
    agentAddress: Wallet.createRandom().address.toLowerCase(), agentName: "m", nonce,
  };
  const signature = await signUserSignedAction({ wallet: master, action, types: ApproveAgentTypes });
  const res = await postJson(h.sim.url, "/exchange", { action, nonce, signature });
  assert.is(res.json.status, "err");
  assert.equal(await h.info.extraAgents({ user: master.address as `0x${string}` }), []);
});

test("a reused nonce is refused, also when replayed byte for byte", async () => {
  const master = await fundedWallet(h.sim);
  const body = await signedNoop(master, Date.now());
  assert.is((await postJson(h.sim.url, "/exchange", body)).json.status, "ok");
  const again = await postJson(h.sim.url, "/exchange", body);
  assert.equal(again.json, { status: "err", response: `Invalid nonce: duplicate nonce ${body.nonce}` });
});

test("nonces outside (now - 2 days, now + 1 day) or below the kept set are refused", async () => {
  const master = await fundedWallet(h.sim);
  const day = 86_400_000;
  const old = await postJson(h.sim.url, "/exchange", await signedNoop(master, Date.now() - 2 * day - 60_000));
  assert.match(old.json.response, /^Invalid nonce: nonce too low \d+ < \d+$/);
  const ahead = await postJson(h.sim.url, "/exchange", await signedNoop(master, Date.now() + day + 60_000));
  assert.match(ahead.json.response, /^Invalid nonce: nonce too high \d+ > \d+$/);
  // keep = 3 in this sim: after three nonces the smallest of them is the floor.
  const base = Date.now();
  for (const n of [base + 10, base + 30, base + 20]) {
    assert.is((await postJson(h.sim.url, "/exchange", await signedNoop(master, n))).json.status, "ok", "unused nonces may arrive out of order");
  }
  const low = await postJson(h.sim.url, "/exchange", await signedNoop(master, base + 5));
  assert.is(low.json.response, `Invalid nonce: nonce too low ${base + 5} < ${base + 10}`);
  assert.is((await postJson(h.sim.url, "/exchange", await signedNoop(master, base + 15))).json.status, "ok");
  const pruned = await postJson(h.sim.url, "/exchange", await signedNoop(master, base + 12));
  assert.match(pruned.json.response, /nonce too low/, "the set keeps only the 3 highest");
});

test("unpadded r/s, null vaultAddress/expiresAfter accepted; stale expiresAfter refused", async () => {
  const master = await fundedWallet(h.sim);
  let body = await signedNoop(master, Date.now());
  for (let n = body.nonce + 1; !/^0x0/.test(body.signature.r) && n < body.nonce + 500; n++) body = await signedNoop(master, n);
  assert.match(body.signature.r, /^0x0/, "found a signature with a leading zero");
  const trimmed = { ...body.signature, r: body.signature.r.replace(/^0x0+/, "0x") };
  const res = await postJson(h.sim.url, "/exchange", { ...body, signature: trimmed, vaultAddress: null, expiresAfter: null });
  assert.equal(res.json, { status: "ok", response: { type: "default" } });
  const nonce = Date.now() + 1_000;
  const expiresAfter = simNow() - 1_000;
  const signature = await signL1Action({ wallet: master, action: NOOP, nonce, isTestnet: true, expiresAfter });
  const expired = await postJson(h.sim.url, "/exchange", { action: NOOP, nonce, signature, expiresAfter });
  assert.equal(expired.json, { status: "err", response: "Action already expired" });
});

test("malformed bodies and unknown actions get 422 text/plain like the real API", async () => {
  const unknown = await postJson(h.sim.url, "/exchange", { action: { type: "teleport" }, nonce: 1, signature: { r: "0x1", s: "0x1", v: 27 } });
  assert.is(unknown.status, 422);
  assert.match(unknown.contentType, /text\/plain/);
  assert.is(unknown.text, "Failed to deserialize the JSON body into the target type");
  const info = await postJson(h.sim.url, "/info", { type: "nope" });
  assert.is(info.status, 422);
  const numericPrice = await postJson(h.sim.url, "/exchange", {
    action: { type: "order", orders: [{ a: 0, b: true, p: 1, s: "1", r: false, t: { limit: { tif: "Gtc" } } }], grouping: "na" },
    nonce: 1, signature: { r: "0x1", s: "0x1", v: 27 },
  });
  assert.is(numericPrice.status, 422);
  assert.is((await postJson(h.sim.url, "/info", "{not json")).status, 400);
});

test.run();
