// The dead-man's switch (--dead-man-seconds): each oracle cycle arms the exchange's
// scheduleCancel on every live vault's account, so when the daemon stops renewing it the vault's
// resting orders are canceled by the exchange itself. Where the venue refuses (its volume gate),
// /healthz says so per account. The sim applies the venue's rules (5 s lead, volume gate).
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { ConfigError, resolveConfig } from "../../daemon/config.js";
import type { TestDaemon } from "../helpers/daemon.js";
import { waitUntil } from "../helpers/util.js";
import { longBtc, startVaultDaemon, vaultCase, vaultTrade } from "../helpers/vaults.js";

const t = suite("dead-man's switch");

const deadMan = async (d: TestDaemon) => (await d.http.get("/healthz")).body.data.deadMan;

t("--dead-man-seconds must exceed --oracle-interval", () => {
  assert.throws(() => resolveConfig({ deadManSeconds: 60, oracleInterval: 60 }), (e: Error) => e instanceof ConfigError && /--dead-man-seconds/.test(e.message));
  assert.is(resolveConfig({ deadManSeconds: 61, oracleInterval: 60 }).deadManSeconds, 61);
  assert.is(resolveConfig({}).deadManSeconds, undefined, "off by default");
});

t("armed each cycle; once the daemon stops renewing it, the exchange cancels the vault's resting order", async () => {
  // 15 s: the sim refuses a time under 5 s ahead, so the request may take up to 10 s on a loaded machine.
  const d = await startVaultDaemon({ staleAfter: 5, oracleInterval: 1, deadManSeconds: 15, simScheduleCancelVolume: "0" });
  try {
    const c = await vaultCase(d);
    await longBtc(c);
    const resting = await vaultTrade(c, c.tom, { size: 0.01, price: 40000 });
    assert.is(resting.status, 200, JSON.stringify(resting.body));
    await d.daemon.oracle.cycle();
    const status = await deadMan(d);
    assert.is(status.seconds, 15);
    const mine = status.accounts.find((a: { account: string }) => a.account === c.ivy.address);
    assert.ok(mine?.armed, JSON.stringify(status));
    // Measured from the daemon's own attempt, not from now: a slow test must not fail this.
    assert.ok(mine.cancelsAt - mine.triedAt >= 14 && mine.cancelsAt - mine.triedAt <= 16, `15 s ahead: ${JSON.stringify(mine)}`);
    // No cycle renews it now (the test daemon's oracle timer is off): the sim fires it.
    await waitUntil(async () => (await d.http.get(`/api/orders?vaultAddress=${c.vault}`, { token: c.tom.token })).body.data.orders.length === 0, {
      what: "the scheduled cancel", slowMs: 90_000,
    });
  } finally {
    await d.close();
  }
});

t("an account under the venue's volume gate is reported as not armed, with the exchange's reason", async () => {
  const d = await startVaultDaemon({ staleAfter: 5, oracleInterval: 1, deadManSeconds: 30 });
  try {
    const c = await vaultCase(d);
    await d.daemon.oracle.cycle();
    const mine = (await deadMan(d)).accounts.find((a: { account: string }) => a.account === c.ivy.address);
    assert.is(mine?.armed, false);
    assert.match(mine.error, /volume/i);
    assert.is(mine.cancelsAt, null);
  } finally {
    await d.close();
  }
});

t.run();
