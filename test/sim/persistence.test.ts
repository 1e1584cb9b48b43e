// A restart with the same SQLite file continues where the sim stopped: accounts, positions, orders,
// fills, agents, nonces, ledger, marks, id counters and the random walk's state.
import { Wallet } from "ethers";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createSimExchange } from "../../daemon/sim/index.js";
import { tempDir } from "../helpers/util.js";
import { fundedWallet, postJson, randomCloid, startSim, statusesOf } from "./_support.js";
import { signL1Action } from "@nktkas/hyperliquid/signing";

const dir = tempDir("tradevault-sim-persist-");
test.after(() => dir.remove());

async function snapshot(h: Awaited<ReturnType<typeof startSim>>, user: `0x${string}`) {
  const state: any = await h.info.clearinghouseState({ user });
  delete state.time;
  return {
    state,
    open: await h.info.openOrders({ user }),
    fills: await h.info.userFills({ user }),
    agents: await h.info.extraAgents({ user }),
    ledger: await h.info.userNonFundingLedgerUpdates({ user, startTime: 0 }),
    mids: await h.info.allMids(),
  };
}

test("state survives a restart and ids, nonces and agents carry on", async () => {
  const dbPath = join(dir.path, "restart.db");
  const first = await startSim({ dbPath });
  const master = await fundedWallet(first.sim, 50_000);
  const user = master.address.toLowerCase() as `0x${string}`;
  const agent = new Wallet(Wallet.createRandom().privateKey);
  await first.exchange(master).approveAgent({ agentAddress: agent.address as `0x${string}`, agentName: "keeper" });
  first.sim.setPrice("ETH", "2950.5");
  const c = randomCloid();
  const trade = first.exchange(agent);
  const [resting] = await statusesOf(trade.order({ orders: [{ a: 0, b: true, p: "59000", s: "0.01", r: false, t: { limit: { tif: "Gtc" } }, c }], grouping: "na" }));
  const [filled] = await statusesOf(trade.order({ orders: [{ a: 1, b: true, p: "3000", s: "0.5", r: false, t: { limit: { tif: "Ioc" } } }], grouping: "na" }));
  assert.ok(resting.resting && filled.filled);
  const nonce = Date.now() + 5;
  const replay = { action: { type: "noop" }, nonce, signature: await signL1Action({ wallet: agent, action: { type: "noop" }, nonce, isTestnet: true }) };
  assert.is((await postJson(first.sim.url, "/exchange", replay)).json.status, "ok");
  const before = await snapshot(first, user);
  await first.close(true);

  const second = await startSim({ dbPath });
  try {
    assert.equal(await snapshot(second, user), before);
    assert.is(second.sim.mark("ETH"), "2950.5");
    const again = await postJson(second.sim.url, "/exchange", replay);
    assert.equal(again.json, { status: "err", response: `Invalid nonce: duplicate nonce ${nonce}` });
    const status: any = await second.info.orderStatus({ user, oid: c });
    assert.is(status.order.status, "open");
    const [next] = await statusesOf(second.exchange(agent).order({ orders: [{ a: 0, b: true, p: "58000", s: "0.01", r: false, t: { limit: { tif: "Gtc" } } }], grouping: "na" }));
    assert.ok(next.resting.oid > filled.filled.oid, "the oid counter continues");
    second.sim.setPrice("BTC", "58999");
    const fills = await second.info.userFills({ user });
    assert.ok(fills[0].tid > before.fills[0].tid, "the trade id counter continues");
  } finally {
    await second.close(true);
  }
});

test("the random walk resumes from its stored state", async () => {
  const walk = { kind: "random-walk" as const, seed: 7, intervalMs: 60_000 };
  const marksOf = (sim: ReturnType<typeof createSimExchange>) => sim.markets.map((m) => sim.mark(m.name));
  const straight = createSimExchange({ dbPath: join(dir.path, "walk-a.db"), priceFeed: walk });
  await straight.start();
  straight.tick(5);
  const expected = marksOf(straight);
  await straight.stop();
  assert.is.not(expected[0], "60000", "the walk moved");

  const dbPath = join(dir.path, "walk-b.db");
  const part1 = createSimExchange({ dbPath, priceFeed: walk });
  await part1.start();
  part1.tick(2);
  await part1.stop();
  const part2 = createSimExchange({ dbPath, priceFeed: walk });
  await part2.start();
  part2.tick(3);
  assert.equal(marksOf(part2), expected);
  await part2.stop();
});

test("a CSV feed replays one row per tick and seeds a fresh database from its first row", async () => {
  const { writeFileSync } = await import("node:fs");
  const path = join(dir.path, "prices.csv");
  writeFileSync(path, "time,BTC,ETH\n0,61000,3100\n1,61500,\n2,62000,3200\n");
  const sim = createSimExchange({ dbPath: ":memory:", priceFeed: { kind: "csv", path, intervalMs: 60_000 } });
  await sim.start();
  try {
    assert.equal([sim.mark("BTC"), sim.mark("ETH"), sim.mark("SOL")], ["61000", "3100", "150"]);
    sim.tick();
    assert.equal([sim.mark("BTC"), sim.mark("ETH")], ["61500", "3100"]);
    sim.tick(2);
    assert.equal([sim.mark("BTC"), sim.mark("ETH")], ["61000", "3100"], "loops back to the first row");
  } finally {
    await sim.stop();
  }
});

test("one sim object can stop and start again; a failed start leaves it stopped", async () => {
  const dbPath = join(dir.path, "again.db");
  const sim = createSimExchange({ dbPath, priceFeed: { kind: "static" } });
  await sim.start();
  const user = Wallet.createRandom().address;
  await sim.faucet(user, 25);
  await sim.stop();
  assert.throws(() => sim.url, /not started/);
  await sim.start();
  try {
    assert.is((await sim.faucet(user, 5)).usdc, "30");
  } finally {
    await sim.stop();
  }
  const broken = createSimExchange({ dbPath, priceFeed: { kind: "csv", path: join(dir.path, "missing.csv") } });
  try {
    await broken.start();
    assert.unreachable();
  } catch (e) {
    assert.match(String(e), /ENOENT/);
  }
  assert.throws(() => broken.mark("BTC"), /not started/);
});

test.run();
