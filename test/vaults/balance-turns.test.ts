// A vault's balance is written one write at a time. A cycle that waited for another write of the
// vault, which landed, does not read it again (one reading per interval, budget kept for the rest). A
// fresh write that waited stamps its reading after the other: read from a row taken before the wait,
// it would repeat the first write's second, and the contract (which keeps only a newer observedAt)
// would drop it, with whatever breach it saw.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { fakeClock } from "../helpers/daemon.js";
import { only } from "../helpers/stores.js";
import { startVaultDaemon, vaultCase } from "../helpers/vaults.js";

// SQLite only: the turns are the daemon's own, whatever its store; on PostgreSQL the lease round that
// takes a new vault writes it once more, at a moment of its own, and the counts below would not hold.
only("sqlite", test)("two cycles at once write a vault once; of two fresh writes at once, the second lands a second after the first", async () => {
  // A clock that stands still: every reading is taken in the same second.
  const d = await startVaultDaemon({ oracleInterval: 60, staleAfter: 120 }, fakeClock(Date.now()));
  try {
    const c = await vaultCase(d);
    await d.daemon.oracle.cycle();
    const events = async () => (await d.http.get(`/api/vaults/${c.vault}/events?limit=50`, { token: c.ivy.token })).body.data.events
      .filter((e: { type: string }) => e.type === "BalanceUpdated");
    const first = await events();
    await Promise.all([d.daemon.oracle.cycle(), d.daemon.oracle.cycle()]);
    const cycles = await events();
    assert.is(cycles.length, first.length + 1, "the second cycle found the vault just written by the first");

    await Promise.all([d.daemon.services.vaults.refresh(c.vault), d.daemon.services.vaults.refresh(c.vault)]);
    const after = await events();
    assert.is(after.length, cycles.length + 2, `each write applied: ${JSON.stringify(after.map((e: { data: unknown }) => e.data))}`);
    const stamps = after.map((e: { data: { observedAt: number } }) => Number(e.data.observedAt)).sort((a: number, b: number) => a - b);
    const last = stamps[stamps.length - 1]!;
    assert.equal(stamps.slice(-3), [last - 2, last - 1, last], "stamped one second apart, on a clock that stood still");
  } finally {
    await d.close();
  }
});

test.run();
