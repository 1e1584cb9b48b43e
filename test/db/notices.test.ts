// A stored vault event wakes every daemon listening on the shared database (PostgreSQL NOTIFY at
// commit), and a rolled-back one wakes nobody. On SQLite (one daemon per file) nothing is sent.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { hexlify, randomBytes } from "ethers";
import { openStore } from "../../daemon/db/database.js";
import { EVENTS_CHANNEL } from "../../daemon/db/notices.js";
import { findVault, insertEvent, insertVault } from "../../daemon/db/vaults-repo.js";
import { only, openTestStore } from "../helpers/stores.js";
import { waitUntil } from "../helpers/util.js";
import { vaultRow } from "../helpers/rows.js";

const address = () => hexlify(randomBytes(20));
const hash = () => hexlify(randomBytes(32));

only("postgres", test)("another daemon's event commit notifies the listeners; a rollback does not", async () => {
  const t = await openTestStore();
  const other = await openStore(t.target);
  try {
    const heard: number[] = [];
    const stop = t.store.listen(EVENTS_CHANNEL, (id) => heard.push(Number(id)));
    const a = address();
    await other.write((trx) => insertVault(trx, vaultRow(a)));
    const event = () => ({ type: "Funded", txHash: hash(), logIndex: 0, blockNumber: 1, time: 1, data: { amount: "1" } });
    // The listener's connection opens in the background: a first event proves it is listening.
    await waitUntil(async () => {
      await other.write(async (trx) => insertEvent(trx, (await findVault(trx, a))!, event()));
      return heard.length > 0;
    }, { what: "a notice for a committed event" });
    let rolledBack = 0;
    await other.write(async (trx) => {
      rolledBack = (await insertEvent(trx, (await findVault(trx, a))!, event()))!.id;
      throw new Error("rolled back");
    }).catch(() => undefined);
    const committed = (await other.write(async (trx) => insertEvent(trx, (await findVault(trx, a))!, event())))!.id;
    // Notices arrive in commit order: once the last commit's is here, a rolled-back one would be too.
    await waitUntil(() => heard.includes(committed), { what: "the committed event's notice" });
    assert.ok(rolledBack > 0);
    assert.not.ok(heard.includes(rolledBack), "the rolled-back event sent nothing");
    stop();
  } finally {
    await other.close();
    await t.close();
  }
});

test.run();
