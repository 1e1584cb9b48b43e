// The PostgreSQL store's change key is read once for all the calls of one event-loop turn
// (postgres-store.ts sameTurn): shared only by calls made before the read was sent, never joined
// once it is on its way, or a caller could get a key older than its own call.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { sameTurn } from "../../daemon/db/postgres-store.js";

const turn = () => new Promise((r) => setImmediate(r));

function countedRead() {
  const pending: Array<(v: number) => void> = [];
  return { pending, read: () => new Promise<number>((resolve) => pending.push(resolve)) };
}

test("calls in one turn share one read; a call after it was sent gets a read of its own", async () => {
  const r = countedRead();
  const key = sameTurn(r.read);
  const a = key();
  const b = key();
  assert.is(r.pending.length, 0, "nothing is sent before the turn ends");
  await turn();
  assert.is(r.pending.length, 1, "one read for both");
  const c = key(); // the first read is on its way, not answered: c must not join it
  await turn();
  assert.is(r.pending.length, 2, "a read of its own");
  r.pending[0]!(1);
  r.pending[1]!(2);
  assert.equal(await Promise.all([a, b, c]), [1, 1, 2]);
});

test("a failed read fails the calls that shared it, and the next call reads again", async () => {
  let n = 0;
  const key = sameTurn(async () => {
    if (++n === 1) throw new Error("connection lost");
    return "k";
  });
  const results = await Promise.allSettled([key(), key()]);
  assert.equal(results.map((x) => x.status), ["rejected", "rejected"]);
  assert.is(await key(), "k");
  assert.is(n, 2);
});

test.run();
