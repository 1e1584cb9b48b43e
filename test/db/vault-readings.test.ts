// A reading's record is stored before its transaction is sent, and never replaced: the verifier
// checks every reading on-chain against it. Two daemons that read one vault in the same second store
// the same figures: the second learns the first is sending it. Other figures for a second already
// taken move to the next free one.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { putReadings, readingsOf, type NewReadingRecord } from "../../daemon/db/vault-readings-repo.js";
import { insertVault } from "../../daemon/db/vaults-repo.js";
import { openTestStore } from "../helpers/stores.js";
import { randomAddress, vaultRow } from "../helpers/rows.js";

const record = (vault: string, accountValue: string): NewReadingRecord => ({
  vault, observedAt: 1_700_000_100, accountValue, external: 0n, stateTime: 1_700_000_100_000, flat: true, nettingFrom: 1_700_000_000_000,
});

test("the same reading stored twice is told apart from a new one; other figures take the next free second", async () => {
  const t = await openTestStore();
  try {
    const [a, b] = [randomAddress(), randomAddress()];
    await t.store.write(async (trx) => {
      await insertVault(trx, vaultRow(a));
      await insertVault(trx, vaultRow(b));
    });
    const put = (records: NewReadingRecord[]) => t.store.write((trx) => putReadings(trx, records));
    const seen = (r: Awaited<ReturnType<typeof put>>) => ({ same: [...r.same], moved: [...r.moved], dropped: [...r.dropped] });
    assert.equal(seen(await put([record(a, "10000")])), { same: [], moved: [], dropped: [] });
    // The other daemon's copy of a's reading (its account read a few milliseconds later), and b's first.
    assert.equal(seen(await put([{ ...record(a, "10000"), stateTime: 1_700_000_100_007 }, record(b, "500")])), { same: [a], moved: [], dropped: [] });
    // Another reading of a in the same second (the account moved): the next second, the first record kept.
    assert.equal(seen(await put([record(a, "282.5")])), { same: [], moved: [[a, 1_700_000_101]], dropped: [] });
    assert.equal((await readingsOf(t.store.db, a)).map((r) => [r.observedAt, r.accountValue]), [[1_700_000_100, "10000"], [1_700_000_101, "282.5"]]);
    assert.equal((await readingsOf(t.store.db, b)).map((r) => r.accountValue), ["500"]);
    // Every second near taken by other figures: not stored, not to be sent.
    for (let i = 0; i < 5; i++) await put([{ ...record(b, String(501 + i)), observedAt: 1_700_000_101 + i }]);
    assert.equal(seen(await put([record(b, "600")])), { same: [], moved: [], dropped: [b] });
  } finally {
    await t.close();
  }
});

test.run();
