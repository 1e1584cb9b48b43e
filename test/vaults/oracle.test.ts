// The oracle loop: deadlines close vaults, exchange failures do not stop it, and a restart of the
// daemon (and of its embedded chain) loses no vault.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { readVaultState } from "../../daemon/chain/contracts.js";
import { createVault, fakeClock, party, startTestDaemon } from "../helpers/daemon.js";
import { waitUntil } from "../helpers/util.js";

test("after the deal deadline trades fail with DEAL_EXPIRED and the oracle closes the vault", async () => {
  const d = await startTestDaemon({ startOracle: false, clock: fakeClock(Date.now(), { realTime: true }) });
  try {
    const ivy = await party(d, { usdc: 10_000, agent: true });
    const tom = await party(d);
    const vault = await createVault(d, ivy, tom, { dealDeadline: Math.floor(d.clock() / 1000) + 120, validUntil: Math.floor(d.clock() / 1000) + 60 });
    assert.is((await d.http.post("/api/trade", { symbol: "ETH", side: "buy", size: 0.1, vaultAddress: vault }, { token: tom.token })).status, 200);
    d.clock.advance(150_000);
    const late = await d.http.post("/api/trade", { symbol: "ETH", side: "buy", size: 0.1, vaultAddress: vault }, { token: tom.token });
    assert.is(late.body.error.code, "DEAL_EXPIRED");
    await d.daemon.oracle.cycle();
    const v = (await d.http.get(`/api/vaults/${vault}`, { token: ivy.token })).body.data.vault;
    assert.is(v.status, "CLOSED");
    assert.equal(v.positions, [], "the position was flattened first");
    assert.ok((await readVaultState(d.daemon.chain.provider, { vault })).closed);
  } finally {
    await d.close();
  }
});

test("a resting vault order that fills later is recorded at the next cycle, not at the periodic sweep", async () => {
  const d = await startTestDaemon({ startOracle: false, clock: fakeClock(Date.now(), { realTime: true }) });
  try {
    const ivy = await party(d, { usdc: 10_000, agent: true });
    const tom = await party(d);
    const vault = await createVault(d, ivy, tom);
    const trades = async () => (await d.http.get(`/api/vaults/${vault}/trades`, { token: ivy.token })).body.data;
    d.daemon.sim!.setPrice("BTC", "60000");
    const order = await d.http.post("/api/trade", { symbol: "BTC", side: "buy", size: 0.01, price: 55000, vaultAddress: vault }, { token: tom.token });
    assert.is(order.status, 200, JSON.stringify(order.body));
    await d.daemon.oracle.cycle();
    assert.is((await trades()).total, 0, "resting: nothing filled yet");
    d.daemon.sim!.setPrice("BTC", "54000"); // crosses the order: it fills
    d.clock.advance(60_000); // one interval, well inside the 5-minute sweep
    await d.daemon.oracle.cycle();
    const after = await trades();
    assert.is(after.total, 1, "the position moved, so the fills were read this cycle");
    assert.equal([after.trades[0].side, after.trades[0].size, after.trades[0].price], ["buy", 0.01, 55000]);
  } finally {
    await d.close();
  }
});

test("the loop keeps cycling through exchange failures, and reports its health", async () => {
  const d = await startTestDaemon({ config: { oracleInterval: 1 }, clock: fakeClock(Date.now(), { realTime: true }) });
  try {
    const ivy = await party(d, { usdc: 5_000 });
    const tom = await party(d);
    await createVault(d, ivy, tom, { initialBalance: "5000" });
    d.daemon.sim!.faults.next({ kind: "http500", endpoint: "info", count: 6 });
    // A cycle that read no vault is no success: it is reported, and the loop backs off (2 s) and goes on.
    await waitUntil(() => d.daemon.oracle.status().lastResult === "error", { slowMs: 15_000, what: "a failed cycle" });
    const first = d.daemon.oracle.status().lastCycleAt;
    await waitUntil(() => d.daemon.oracle.status().lastResult === "ok", { slowMs: 20_000, what: "a good cycle after the faults" });
    assert.is(d.daemon.sim!.faults.pending().length, 0);
    const health = (await d.http.get("/healthz")).body.data;
    assert.is(health.oracle.lastResult, "ok");
    assert.ok(health.oracle.lastSuccessAt >= Math.floor(first! / 1000), "the success is reported, in seconds");
    assert.ok(health.oracle.ageSeconds >= 0);
    assert.is(health.oracle.activeVaults, 1);
    assert.is(health.chain.chainId, 31337);
    assert.match(health.chain.factory, /^0x[0-9a-fA-F]{40}$/);
  } finally {
    await d.close();
  }
});

test("a balance read that fails with a 5xx is tried once more within the cycle; two failures skip the vault", async () => {
  const d = await startTestDaemon({ startOracle: false, clock: fakeClock(Date.now(), { realTime: true }) });
  try {
    const ivy = await party(d, { usdc: 5_000 });
    const tom = await party(d);
    const vault = await createVault(d, ivy, tom, { initialBalance: "5000" });
    const observed = async () => (await d.http.get(`/api/vaults/${vault}`, { token: ivy.token })).body.data.vault.lastBalanceUpdate as number;
    await d.daemon.oracle.cycle(); // the first cycle also reads the fills; later ones only the balance
    const before = await observed();
    d.clock.advance(2_000);
    d.daemon.sim!.faults.next({ kind: "http500", endpoint: "info", count: 1 });
    await d.daemon.oracle.cycle();
    assert.is(d.daemon.sim!.faults.pending().length, 0);
    assert.ok((await observed()) > before, "read on the second try and written");
    d.clock.advance(2_000);
    d.daemon.sim!.faults.next({ kind: "http500", endpoint: "info", count: 2 });
    const failed = await d.daemon.oracle.cycle().then(() => "", (e: Error) => e.message);
    assert.match(failed, /no active vault could be read/);
    assert.is(d.daemon.sim!.faults.pending().length, 0, "exactly two tries");
  } finally {
    await d.close();
  }
});

test("a restart (the embedded chain forgets everything) brings every vault back at its address", async () => {
  const clock = fakeClock(Date.now(), { realTime: true });
  const first = await startTestDaemon({ startOracle: false, clock });
  const ivy = await party(first, { usdc: 10_000, agent: true });
  const tom = await party(first);
  const vault = await createVault(first, ivy, tom);
  await first.http.post("/api/trade", { symbol: "BTC", side: "buy", size: 0.1, vaultAddress: vault }, { token: tom.token });
  first.daemon.sim!.setPrice("BTC", "57000");
  await first.daemon.oracle.cycle();
  const before = await readVaultState(first.daemon.chain.provider, { vault });
  const events = (await first.http.get(`/api/vaults/${vault}/events?limit=1000`, { token: ivy.token })).body.data.total;
  await first.daemon.stop();

  const second = await startTestDaemon({ startOracle: false, clock, dataDir: first.dataDir });
  try {
    assert.ok(second.daemon.chain.rebuilt);
    const after = await readVaultState(second.daemon.chain.provider, { vault });
    assert.is(after.balance, before.balance);
    assert.is(after.peakBalance, before.peakBalance);
    assert.is(after.paused, before.paused);
    // the session survived too (SQLite), and no event was recorded twice by the replay
    const v = await second.http.get(`/api/vaults/${vault}/events?limit=1000`, { token: ivy.token });
    assert.is(v.body.data.total, events);
    await second.daemon.oracle.cycle();
    assert.ok((await second.http.get(`/api/vaults/${vault}/events?limit=1000`, { token: ivy.token })).body.data.total > events, "the oracle carries on");
  } finally {
    await second.close();
    await first.close().catch(() => undefined);
  }
});

test.run();
