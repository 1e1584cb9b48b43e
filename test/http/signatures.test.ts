// Every route that takes a signature, given 65 bytes that cannot be an ECDSA signature: 400 at the
// route naming body.signature (401 on sign-in, a failed sign-in), never a 500 and nothing written;
// given something that is not 65 bytes of 0x-hex at all, 400 naming body.signature everywhere.
// And the other way round: a real signature with v as 0 or 1 (some hardware wallets) is taken.
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { Signature, Wallet, id } from "ethers";
import { signature, signatureHex } from "../../daemon/http/schemas.js";
import { createVault, party, signTyped, startTestDaemon, type Party, type TestDaemon } from "../helpers/daemon.js";

const N = "fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141";
const REAL = Wallet.createRandom().signingKey.sign(id("anything")).serialized;
const BAD: Record<string, string> = {
  "high s": `0x${"ab".repeat(64)}1b`, // ethers parses it; its own s getter, the token's permit and OpenZeppelin do not
  "all ff": `0x${"ff".repeat(65)}`,
  "r = 0": `0x${"00".repeat(32)}${"11".repeat(32)}1b`,
  "r = n": `0x${N}${"11".repeat(32)}1b`,
  "r off the curve": `0x${"11".repeat(64)}1b`,
  "a real signature's high-s twin": highSTwin(REAL),
  // Above n/2 with the top bit clear: ethers' parser and recovery take it, EIP-2 and OpenZeppelin do not.
  "s = 2^255 - 1": `${REAL.slice(0, 66)}7f${"ff".repeat(31)}${REAL.slice(130)}`,
};

const HEX65 = REAL.slice(2);
/** Not the shape of a signature: the ECDSA checks must never see these. */
const MALFORMED: Record<string, unknown> = {
  '"0"': "0", '"xyz"': "xyz", "empty": "", '"0x"': "0x", "odd-length hex": `0x${HEX65}a`, "64 bytes": `0x${HEX65.slice(0, 128)}`,
  "66 bytes": `0x${HEX65}00`, "a non-hex character": `0x${HEX65.slice(0, 129)}g`, "a number": 12345, "0X": `0X${HEX65}`,
  "a trailing newline": `${REAL}\n`, "null": null, "no 0x": HEX65,
};

/** (r, n - s, the other v): recovers the same signer, but EIP-2 and OpenZeppelin refuse it. */
function highSTwin(sig: string): string {
  const s = (BigInt(`0x${N}`) - BigInt(`0x${sig.slice(66, 130)}`)).toString(16).padStart(64, "0");
  return `${sig.slice(0, 66)}${s}${sig.endsWith("1b") ? "1c" : "1b"}`;
}

const t = suite<{ d: TestDaemon; ivy: Party; tom: Party; vault: string }>("signatures");
t.before(async (ctx) => {
  ctx.d = await startTestDaemon({ startOracle: false });
  [ctx.ivy, ctx.tom] = await Promise.all([party(ctx.d, { usdc: 5_000 }), party(ctx.d)]);
  ctx.vault = await createVault(ctx.d, ctx.ivy, ctx.tom, { initialBalance: "1000" });
});
t.after(async (ctx) => {
  await ctx.d.close();
});

const proposalBody = (ctx: { d: TestDaemon; ivy: Party; tom: Party }, investor = ctx.ivy.address) => ({
  investor, trader: ctx.tom.address, exchangeAccount: ctx.tom.address, initialBalance: "100", maxDrawdown: 10, dailyDrawdown: 5,
  dealDeadline: Math.floor(ctx.d.clock() / 1000) + 86_400, profitShare: { trader: 20, investor: 80 },
});

function refusedAtRoute(r: { status: number; body: any }, what: string) {
  assert.is(r.status, 400, `${what}: ${JSON.stringify(r.body)}`);
  assert.is(r.body.error.code, "INVALID_INPUT");
  assert.equal(r.body.error.details.map((x: { field: string }) => x.field), ["body.signature"], what);
  assert.match(r.body.error.message, /is not a valid ECDSA signature/);
}

t("fund, proposal accept and agent approve: 400 body.signature for each bad signature, nothing recorded", async (ctx) => {
  const { d, ivy, tom, vault } = ctx;
  const p = (await d.http.post("/api/proposals", proposalBody(ctx), { token: tom.token })).body.data.proposal;
  const deadline = Math.floor(d.clock() / 1000) + 600;
  for (const [name, bad] of Object.entries(BAD)) {
    refusedAtRoute(await d.http.post(`/api/vaults/${vault}/fund`, { amount: "1", deadline, signature: bad }, { token: ivy.token }), `fund, ${name}`);
    refusedAtRoute(await d.http.post(`/api/proposals/${p.id}/accept`, { signature: bad }, { token: tom.token }), `accept, ${name}`);
    refusedAtRoute(await d.http.post("/api/agent/approve", { nonce: Date.now(), signature: bad }, { token: tom.token }), `agent, ${name}`);
  }
  const after = await d.http.get(`/api/proposals/${p.id}`, { token: tom.token });
  assert.equal(after.body.data.proposal.signedBy, { investor: false, trader: false });
  const escrow = await d.http.get(`/api/vaults/${vault}`, { token: ivy.token });
  assert.is(escrow.status, 200);
});

t("fund, proposal accept and agent approve: 400 body.signature for each malformed signature, nothing recorded", async (ctx) => {
  const { d, ivy, tom, vault } = ctx;
  const p = (await d.http.post("/api/proposals", proposalBody(ctx), { token: tom.token })).body.data.proposal;
  const deadline = Math.floor(d.clock() / 1000) + 600;
  const malformed = (r: { status: number; body: any }, what: string) => {
    assert.is(r.status, 400, `${what}: ${JSON.stringify(r.body)}`);
    assert.is(r.body.error.code, "INVALID_INPUT", what);
    assert.equal(r.body.error.details.map((x: { field: string }) => x.field), ["body.signature"], what);
  };
  for (const [name, bad] of Object.entries(MALFORMED)) {
    malformed(await d.http.post(`/api/vaults/${vault}/fund`, { amount: "1", deadline, signature: bad }, { token: ivy.token }), `fund, ${name}`);
    malformed(await d.http.post(`/api/proposals/${p.id}/accept`, { signature: bad }, { token: tom.token }), `accept, ${name}`);
    malformed(await d.http.post("/api/agent/approve", { nonce: Date.now(), signature: bad }, { token: tom.token }), `agent, ${name}`);
    const c = (await d.http.post("/api/auth/challenge", { address: ivy.address })).body.data;
    malformed(await d.http.post("/api/auth/login", { address: ivy.address, signature: bad, nonce: c.nonce }), `login, ${name}`);
  }
  const after = await d.http.get(`/api/proposals/${p.id}`, { token: tom.token });
  assert.equal(after.body.data.proposal.signedBy, { investor: false, trader: false });
  assert.is((await d.http.get("/api/agent", { token: tom.token })).body.data.approved, false);
});

t("sign-in: each bad signature is 401 and leaves the nonce usable", async (ctx) => {
  const { d, ivy } = ctx;
  const c = (await d.http.post("/api/auth/challenge", { address: ivy.address })).body.data;
  for (const [name, bad] of Object.entries(BAD)) {
    const r = await d.http.post("/api/auth/login", { address: ivy.address, signature: bad, nonce: c.nonce });
    assert.is(r.status, 401, `login, ${name}: ${JSON.stringify(r.body)}`);
    assert.is(r.body.error.code, "UNAUTHENTICATED");
  }
  const good = await d.http.post("/api/auth/login", { address: ivy.address, signature: await ivy.wallet.signMessage(c.message), nonce: c.nonce });
  assert.is(good.status, 200, JSON.stringify(good.body));
});

t("a real signature with v as 0 or 1 is taken and relayed as 27/28: the vault deploys", async (ctx) => {
  const { d, tom } = ctx;
  const ann = await party(d, { usdc: 1_000 });
  const p = (await d.http.post("/api/proposals", proposalBody(ctx, ann.address), { token: tom.token })).body.data.proposal;
  const lowV = (sig: string) => Signature.from(sig).serialized.slice(0, 130) + (Signature.from(sig).v === 27 ? "00" : "01");
  for (const who of [tom, ann]) {
    const r = await d.http.post(`/api/proposals/${p.id}/accept`, { signature: lowV(await signTyped(who.wallet, p.typedData)) }, { token: who.token });
    assert.is(r.status, 200, JSON.stringify(r.body));
  }
  const done = await d.http.get(`/api/proposals/${p.id}`, { token: tom.token });
  assert.is(done.body.data.proposal.status, "ACCEPTED", done.body.data.proposal.relayError ?? "");
  assert.ok(done.body.data.proposal.vaultAddress);
});

t("every route with a body.signature takes the shared schema (login its shape only)", (ctx) => {
  const withSignature = ctx.d.daemon.routes.flatMap((r) => {
    const shape = (r.body as { shape?: Record<string, unknown> } | undefined)?.shape;
    return shape && "signature" in shape ? [[`${r.method} ${r.path}`, shape.signature] as const] : [];
  });
  assert.equal(withSignature.map(([name]) => name).sort(), [
    "post /api/agent/approve", "post /api/auth/login", "post /api/proposals/:id/accept", "post /api/vaults/:address/fund",
  ]);
  for (const [name, schema] of withSignature) assert.ok(schema === (name === "post /api/auth/login" ? signatureHex : signature), name);
});

t.run();
