// The test controls: faucet (with the onFaucet hook and the ledger), price, loopback-only access.
import { Wallet } from "ethers";
import { networkInterfaces } from "node:os";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { isLoopbackAddress } from "../../daemon/sim/server.js";
import { postJson, startSim, type SimHarness } from "./_support.js";

let h: SimHarness;
const minted: [string, bigint][] = [];
let hookFails = false;

test.before(async () => {
  h = await startSim({
    host: "0.0.0.0", // so the non-loopback test below can reach it; the default is 127.0.0.1
    onFaucet: async (user, amount) => {
      if (hookFails) throw new Error("chain down");
      minted.push([user, amount]);
    },
  });
});
test.after(async () => {
  await h.close();
});

test("POST /sim/faucet credits USDC, calls onFaucet with base units and records a deposit", async () => {
  const addr = Wallet.createRandom().address;
  const res = await postJson(h.sim.url, "/sim/faucet", { user: addr, amount: 1234.5 });
  assert.is(res.status, 200);
  assert.equal(res.json, { ok: true, user: addr.toLowerCase(), amount: "1234.5", usdc: "1234.5" });
  const res2 = await postJson(h.sim.url, "/sim/faucet", { user: addr, amount: "0.000001" });
  assert.is(res2.json.usdc, "1234.500001");
  assert.equal(minted.slice(-2), [[addr.toLowerCase(), 1_234_500_000n], [addr.toLowerCase(), 1n]]);
  const user = addr.toLowerCase() as `0x${string}`;
  const ledger: any[] = await h.info.userNonFundingLedgerUpdates({ user, startTime: 0 });
  assert.equal(ledger.map((l) => l.delta), [{ type: "deposit", usdc: "1234.5" }, { type: "deposit", usdc: "0.000001" }]);
  assert.match(ledger[0].hash, /^0x[0-9a-f]{64}$/);
  assert.is.not(ledger[0].hash, ledger[1].hash);
  const state = await h.info.clearinghouseState({ user });
  assert.is(state.withdrawable, "1234.500001");
});

test("bad faucet requests are refused with 400 and credit nothing", async () => {
  const addr = Wallet.createRandom().address;
  for (const amount of ["1.0000001", "-5", 0, "abc", 1e-7, "2000000"]) {
    const res = await postJson(h.sim.url, "/sim/faucet", { user: addr, amount });
    assert.is(res.status, 400, String(amount));
    assert.is(res.json.ok, false);
  }
  assert.is((await postJson(h.sim.url, "/sim/faucet", { user: "0x123", amount: 1 })).status, 400);
  assert.is((await postJson(h.sim.url, "/sim/faucet", { amount: 1 })).status, 400);
  const state = await h.info.clearinghouseState({ user: addr.toLowerCase() as `0x${string}` });
  assert.is(state.marginSummary.accountValue, "0.0");
});

test("a failing onFaucet hook answers 502 and credits nothing", async () => {
  const addr = Wallet.createRandom().address;
  hookFails = true;
  try {
    const res = await postJson(h.sim.url, "/sim/faucet", { user: addr, amount: 100 });
    assert.is(res.status, 502);
    assert.match(res.json.error, /chain down/);
  } finally {
    hookFails = false;
  }
  const ledger = await h.info.userNonFundingLedgerUpdates({ user: addr.toLowerCase() as `0x${string}`, startTime: 0 });
  assert.equal(ledger, []);
});

test("POST /sim/price sets the mark; unknown symbols and bad prices are refused", async () => {
  const res = await postJson(h.sim.url, "/sim/price", { symbol: "ETH", price: "3210.5" });
  assert.equal(res.json, { ok: true, filledOids: [], liquidated: [] });
  assert.is((await h.info.allMids()).ETH, "3210.5");
  assert.is(h.sim.mark("ETH"), "3210.5");
  assert.is((await postJson(h.sim.url, "/sim/price", { symbol: "DOGE", price: 1 })).status, 400);
  assert.is((await postJson(h.sim.url, "/sim/price", { symbol: "ETH", price: "-1" })).status, 400);
  assert.is((await postJson(h.sim.url, "/sim/price", { symbol: "ETH", price: "1e3" })).status, 400);
});

test("controls answer only loopback clients; the Hyperliquid API answers anyone it can reach", async () => {
  assert.ok(isLoopbackAddress("127.0.0.1"));
  assert.ok(isLoopbackAddress("127.8.9.10"));
  assert.ok(isLoopbackAddress("::1"));
  assert.ok(isLoopbackAddress("::ffff:127.0.0.1"));
  assert.not.ok(isLoopbackAddress("192.0.2.2"));
  assert.not.ok(isLoopbackAddress("::ffff:10.0.0.1"));
  assert.not.ok(isLoopbackAddress(undefined));
  const external = Object.values(networkInterfaces()).flat().find((i) => i && i.family === "IPv4" && !i.internal);
  if (!external) {
    console.log("no non-loopback IPv4 interface here: skipping the remote-client half");
    return;
  }
  const remote = `http://${external.address}:${h.sim.port}`;
  const faucet = await postJson(remote, "/sim/faucet", { user: Wallet.createRandom().address, amount: 5 }, { "X-Forwarded-For": "127.0.0.1" });
  assert.is(faucet.status, 403);
  const price = await postJson(remote, "/sim/price", { symbol: "BTC", price: 1 });
  assert.is((await fetch(`${remote}/sim/price`)).status, 403, "refused before the method is looked at");
  assert.is(price.status, 403);
  assert.is.not(h.sim.mark("BTC"), "1");
  const meta = await postJson(remote, "/info", { type: "meta" });
  assert.is(meta.status, 200);
  const logged = h.sim.requests.filter((r) => r.remoteAddress.endsWith(external.address));
  assert.ok(logged.some((r) => r.path === "/sim/faucet" && r.status === 403));
});

test("the default listen address is loopback only", async () => {
  const other = await startSim();
  try {
    assert.match(other.sim.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    const external = Object.values(networkInterfaces()).flat().find((i) => i && i.family === "IPv4" && !i.internal);
    if (external) {
      const refused = await fetch(`http://${external.address}:${other.sim.port}/info`, { method: "POST" }).then(() => false, () => true);
      assert.ok(refused, "not reachable from a non-loopback address");
    }
  } finally {
    await other.close();
  }
});

test("unknown paths and methods are refused", async () => {
  assert.is((await postJson(h.sim.url, "/sim/nope", {})).status, 404);
  assert.is((await fetch(`${h.sim.url}/sim/price`)).status, 405);
  assert.is((await postJson(h.sim.url, "/nope", {})).status, 404);
  assert.is((await fetch(`${h.sim.url}/info`)).status, 405);
  assert.is((await postJson(h.sim.url, "/info", { type: "meta" }, { "Content-Type": "text/plain" })).status, 415);
});

test.run();
