// Event payloads speak the vault endpoints' units, in the REST list and on the live stream alike:
// USDC amounts as decimal strings, limits and drawdowns in percent, never base units or basis points.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createVault, fakeClock, party, startTestDaemon } from "../helpers/daemon.js";
import { openSse } from "../helpers/sse.js";
import { waitUntil } from "../helpers/util.js";

test("VaultCreated, BalanceUpdated and BalanceMismatch carry USDC decimals and percentages", async () => {
  const d = await startTestDaemon({ startOracle: false, clock: fakeClock(Date.now(), { realTime: true }) });
  try {
    const ivy = await party(d, { usdc: 12_000.5 });
    const tom = await party(d);
    const vault = await createVault(d, ivy, tom, { initialBalance: "10000", maxDrawdown: 12.5, dailyDrawdown: 5 });
    const stream = await openSse(`${d.url}/api/events`, ivy.token, 0);
    try {
      const events = (await d.http.get(`/api/vaults/${vault}/events`, { token: ivy.token })).body.data.events as any[];
      const byType = (type: string) => events.find((e) => e.type === type)?.data;
      const created = byType("VaultCreated");
      assert.is(created.initialBalance, "10000");
      assert.is(created.maxDrawdown, 12.5);
      assert.is(created.dailyDrawdown, 5);
      assert.is(created.traderShare, 20);
      assert.not.ok("maxDrawdownBps" in created, "no basis points left");
      const mismatch = byType("BalanceMismatch");
      assert.equal([mismatch.expected, mismatch.observed], ["10000", "12000.5"]);
      const updated = byType("BalanceUpdated");
      assert.is(updated.balance, "12000.5");
      assert.is(updated.peakBalance, "12000.5");
      assert.is(updated.drawdown, 0);
      assert.type(updated.observedAt, "number");

      await waitUntil(() => stream.events.some((e) => e.event === "BalanceUpdated"), { what: "the stream's backlog" });
      const live = stream.events.find((e) => e.event === "BalanceUpdated")!.data;
      assert.is(live.balance, "12000.5", "the stream uses the same units");
      assert.is(live.vault, vault);
    } finally {
      stream.close();
    }
  } finally {
    await d.close();
  }
});

test.run();
