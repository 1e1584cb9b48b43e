// Vault trade pages: newest first, offsets, date windows, hasMore arithmetic, duplicates ignored.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { appendFills, tradePage, type NewFill } from "../../daemon/db/vault-trades-repo.js";
import { openTestStore } from "../helpers/stores.js";

const fill = (i: number): NewFill => ({
  tid: 1000 + i, oid: 1, symbol: "BTC", side: i % 2 ? "buy" : "sell", size: "0.01", price: String(60000 + i),
  pnl: "0", fee: "0.1", timeMs: 1_700_000_000_000 + i * 60_000,
});

test("a batch mixing known and new fills returns the new rows as stored, numbered without gaps", async () => {
  const { store, close } = await openTestStore();
  try {
    await store.write((trx) => appendFills(trx, "M", "A", [fill(1), fill(2)]));
    // One statement of four rows, two of them known: the stored ids cannot be inferred from the count.
    const mixed = await store.write((trx) => appendFills(trx, "M", "A", [fill(1), fill(3), fill(2), fill(4)]));
    assert.equal(mixed.map((r) => [r.tid, r.seq]), [[1003, 3], [1004, 4]]);
    const stored = (await tradePage(store.db, "M", { limit: 10, offset: 0 })).rows;
    assert.equal(stored.slice(0, 2), [...mixed].reverse(), "ids and fields as stored");
  } finally {
    await close();
  }
});

test("pages are index ranges over a dense sequence, with date windows", async () => {
  const { store, close } = await openTestStore();
  try {
    const { db } = store;
    const added = await store.write((trx) => appendFills(trx, "V", "A", Array.from({ length: 250 }, (_, i) => fill(i))));
    assert.is(added.length, 250);
    // the same fills again (and one new) add only the new one
    const again = await store.write((trx) => appendFills(trx, "V", "A", [fill(3), fill(249), fill(250)]));
    assert.equal(again.map((r) => r.tid), [1250]);
    assert.is(again[0]!.seq, 251, "skipped duplicates take no sequence number");
    assert.equal(again[0]!.price, "60250");
    // a fill repeated inside one batch is recorded once; another vault's sequence is its own
    const twice = await store.write((trx) => appendFills(trx, "X", "B", [fill(7), fill(7), fill(8)]));
    assert.equal(twice.map((r) => [r.tid, r.seq, r.vault, r.account]), [[1007, 1, "X", "B"], [1008, 2, "X", "B"]]);
    assert.equal(await store.write((trx) => appendFills(trx, "X", "B", [])), []);

    const first = (await tradePage(db, "V", { limit: 100, offset: 0 }));
    assert.is(first.total, 251);
    assert.is(first.rows.length, 100);
    assert.is(first.rows[0]!.tid, 1250, "newest first");
    assert.is(first.rows[99]!.tid, 1151);
    assert.equal(first.rows[0], again[0], "the row appendFills returned is the row stored");
    assert.equal(first.rows.find((r) => r.tid === 1200), { ...first.rows[50]!, vault: "V", account: "A", tid: 1200, oid: 1, symbol: "BTC", side: "sell", size: "0.01", price: "60200", pnl: "0", fee: "0.1", time_ms: fill(200).timeMs, seq: 201 });
    const last = (await tradePage(db, "V", { limit: 100, offset: 200 }));
    assert.equal([last.rows.length, last.rows.at(-1)!.tid], [51, 1000]);
    assert.is((await tradePage(db, "V", { limit: 100, offset: 251 })).rows.length, 0);

    // window: fills 10..19 inclusive
    const w = (await tradePage(db, "V", { limit: 5, offset: 0, startMs: fill(10).timeMs, endMs: fill(19).timeMs }));
    assert.is(w.total, 10);
    assert.equal(w.rows.map((r) => r.tid), [1019, 1018, 1017, 1016, 1015]);
    const w2 = (await tradePage(db, "V", { limit: 5, offset: 5, startMs: fill(10).timeMs, endMs: fill(19).timeMs }));
    assert.equal(w2.rows.map((r) => r.tid), [1014, 1013, 1012, 1011, 1010]);
    // windows before, between and after the data
    assert.is((await tradePage(db, "V", { limit: 5, offset: 0, endMs: fill(0).timeMs - 1 })).total, 0);
    assert.is((await tradePage(db, "V", { limit: 5, offset: 0, startMs: fill(250).timeMs + 1 })).total, 0);
    assert.is((await tradePage(db, "V", { limit: 5, offset: 0, startMs: fill(5).timeMs + 1, endMs: fill(6).timeMs - 1 })).total, 0);
    // another vault is separate
    assert.is((await tradePage(db, "W", { limit: 5, offset: 0 })).total, 0);
  } finally {
    await close();
  }
});

test.run();
