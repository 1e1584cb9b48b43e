// Risk that holds between oracle polls: with the price stream on, a price move that takes a vault's
// estimated drawdown to its limit (or within --breach-margin of it) is read and written on-chain at
// once, and the contract pauses the vault, with no oracle cycle in between. With --no-price-stream the
// same move waits for the next poll (today's behaviour, the benchmark's baseline).
import { test } from "uvu";
import * as assert from "uvu/assert";
import { waitUntil } from "../helpers/util.js";
import { setPrice, startVaultDaemon, vaultCase, vaultDetail, vaultTrade } from "../helpers/vaults.js";

async function leveragedVault(priceStream: boolean) {
  const d = await startVaultDaemon({ oracleInterval: 60, staleAfter: 120, priceStream, breachMargin: 0.5 });
  setPrice(d, "BTC", "60000");
  // 10,000 of capital, 5% daily limit; a 0.5 BTC long is 30,000 of exposure (3x): 1% on BTC is 3% on the vault.
  const c = await vaultCase(d, { initialBalance: "10000", maxDrawdown: 10, dailyDrawdown: 5 });
  await d.daemon.oracle.cycle(); // a poll before the order: it saw no position
  const buy = await vaultTrade(c, c.tom, { size: 0.5 });
  assert.is(buy.status, 200, JSON.stringify(buy.body));
  // No poll after it: the order that filled re-read the account, so the revaluation knows the position.
  await waitUntil(async () => (await vaultDetail(c)).trades.length > 0, { what: "the fill recorded" });
  assert.is((await vaultDetail(c)).paused, false);
  return { d, c };
}

test("a price move that crosses the daily limit between polls pauses the vault within seconds", async () => {
  const { d, c } = await leveragedVault(true);
  try {
    await waitUntil(async () => (await d.http.get("/healthz")).body.data.priceStream.state === "open", { what: "the price stream" });
    const before = (await vaultDetail(c)).lastBalanceUpdate;
    setPrice(d, "BTC", "58200"); // -3% on BTC: about -9% on the vault, past the 5% daily limit
    const paused = await waitUntil(async () => {
      const v = await vaultDetail(c);
      return v.paused ? v : undefined;
    }, { what: "the pause, with no oracle cycle", slowMs: 15_000 });
    assert.is(paused.pauseReason, "dailyDrawdown");
    assert.ok(paused.lastBalanceUpdate >= before, "a fresh reading was written");
    const health = (await d.http.get("/healthz")).body.data.priceStream;
    assert.ok(health.earlyWrites >= 1, JSON.stringify(health));
    const events = (await d.http.get(`/api/vaults/${c.vault}/events?limit=50`, { token: c.ivy.token })).body.data.events.map((e: any) => e.type);
    assert.ok(events.includes("Paused"), events.join(","));
  } finally {
    await d.close();
  }
});

test("within the margin of a limit the vault is read and written early, and the contract decides (no pause short of the limit)", async () => {
  const { d, c } = await leveragedVault(true);
  try {
    await waitUntil(async () => (await d.http.get("/healthz")).body.data.priceStream.state === "open", { what: "the price stream" });
    const before = (await vaultDetail(c)).lastBalanceUpdate;
    // -950 on BTC: the vault about 4.9% below its day's start: inside the 0.5-point margin, short of 5%
    setPrice(d, "BTC", "59050");
    await waitUntil(async () => (await d.http.get("/healthz")).body.data.priceStream.earlyWrites >= 1, { what: "an early write" });
    const v = await waitUntil(async () => {
      const x = await vaultDetail(c);
      return x.lastBalanceUpdate > before ? x : undefined;
    }, { what: "the early reading on-chain" });
    assert.is(v.paused, false, "the contract pauses only at the limit");
    assert.ok(v.currentDailyDrawdown >= 4.5 && v.currentDailyDrawdown < 5, String(v.currentDailyDrawdown));
  } finally {
    await d.close();
  }
});

test("with --no-price-stream the same move waits for the next poll", async () => {
  const { d, c } = await leveragedVault(false);
  try {
    const health = (await d.http.get("/healthz")).body.data.priceStream;
    assert.is(health.state, "off");
    setPrice(d, "BTC", "58200");
    await new Promise((r) => setTimeout(r, 2_000));
    assert.is((await vaultDetail(c)).paused, false, "nothing between polls");
    assert.is((await d.http.get("/healthz")).body.data.priceStream.earlyWrites, 0);
    await d.daemon.oracle.cycle();
    assert.is((await vaultDetail(c)).paused, true, "the poll pauses it");
  } finally {
    await d.close();
  }
});

test.run();
