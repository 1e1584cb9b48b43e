// Integers beyond 32 bits (millisecond times, the exchange's order and fill ids) are stored whole and
// come back as JS numbers on both stores, as do counts; money stays decimal text.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { ensureUser, findSession, insertSession } from "../../daemon/db/auth-repo.js";
import { countOrdersByStatus, findByOid, insertOrder } from "../../daemon/db/orders-repo.js";
import { proposalsOf } from "../../daemon/db/proposals-repo.js";
import { appendFills } from "../../daemon/db/vault-trades-repo.js";
import { openTestStore } from "../helpers/stores.js";

const MS = 1_800_000_000_123; // 2027: far above 2^31
const OID = 2 ** 40 + 7;

test("a millisecond time, an oid and a count come back as the numbers they were", async () => {
  const { store, close } = await openTestStore();
  try {
    await store.write(async (trx) => {
      await ensureUser(trx, "0xA", MS);
      await insertSession(trx, { token_hash: "h", address: "0xA", created_at: MS, refreshed_at: MS + 1, expires_at: MS + 2, absolute_expires_at: MS + 3 });
      await insertOrder(trx, {
        cloid: "0x01", user: "0xA", account: "0xB", vault_address: null, agent: "0xC", idempotency_key: null, request_hash: "r",
        symbol: "BTC", asset: 0, side: "buy", size: "0.001", price: "60000.5", tif: "Gtc", reduce_only: 0, market: 0, status: "resting",
        oid: OID, filled_size: null, average_price: null, error_code: null, error_message: null, expires_at: MS, created_at: MS, updated_at: MS,
      });
    });
    const session = await findSession(store.db, "h");
    assert.equal(
      [session!.created_at, session!.refreshed_at, session!.expires_at, session!.absolute_expires_at],
      [MS, MS + 1, MS + 2, MS + 3],
    );
    const order = await findByOid(store.db, "0xB", OID);
    assert.is(order!.oid, OID);
    assert.is(typeof order!.id, "number");
    assert.equal([order!.created_at, order!.size, order!.price], [MS, "0.001", "60000.5"]);
    assert.equal(await countOrdersByStatus(store.db), [{ key: "resting", n: 1 }]);
    assert.equal(await proposalsOf(store.db, "0xA", 10, 0), { rows: [], total: 0 });

    const [trade] = await store.write((trx) => appendFills(trx, "V", "0xB", [{
      tid: 2 ** 45, oid: OID, symbol: "BTC", side: "buy", size: "0.001", price: "60000", pnl: "-1.25", fee: "0.01", timeMs: MS,
    }]));
    assert.equal([trade!.tid, trade!.oid, trade!.time_ms, trade!.seq, trade!.pnl], [2 ** 45, OID, MS, 1, "-1.25"]);
  } finally {
    await close();
  }
});

test.run();
