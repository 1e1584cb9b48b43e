// A reading's record is stored before its transaction is sent. Two daemons that read one vault in
// the same second as it changes hands store the same figures: the second learns the first is sending
// it; a try whose figures differ (read again after a failed send) replaces the record.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { putReadings, readingsOf, type NewReadingRecord } from "../../daemon/db/vault-readings-repo.js";
import { insertVault } from "../../daemon/db/vaults-repo.js";
import { openTestStore } from "../helpers/stores.js";
import { randomAddress, vaultRow } from "../helpers/rows.js";

const record = (vault: string, accountValue: string): NewReadingRecord => ({
  vault, observedAt: 1_700_000_100, accountValue, external: 0n, stateTime: 1_700_000_100_000, flat: true, nettingFrom: 1_700_000_000_000,
});

test("the same reading stored twice is told apart from a new one; figures that differ replace the record", async () => {
  const t = await openTestStore();
  try {
    const [a, b] = [randomAddress(), randomAddress()];
    await t.store.write(async (trx) => {
      await insertVault(trx, vaultRow(a));
      await insertVault(trx, vaultRow(b));
    });
    const put = (records: NewReadingRecord[]) => t.store.write((trx) => putReadings(trx, records));
    assert.equal([...await put([record(a, "10000")])], []);
    // The other daemon's copy of a's reading (its account read a few milliseconds later), and b's first.
    assert.equal([...await put([{ ...record(a, "10000"), stateTime: 1_700_000_100_007 }, record(b, "500")])], [a]);
    // Read again after a failed send: other figures in the same second.
    assert.equal([...await put([record(a, "10001.5")])], []);
    assert.equal((await readingsOf(t.store.db, a)).map((r) => r.accountValue), ["10001.5"]);
    assert.equal((await readingsOf(t.store.db, b)).map((r) => r.accountValue), ["500"]);
  } finally {
    await t.close();
  }
});

test.run();
