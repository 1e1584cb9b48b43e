// Dust closes, over HTTP with the real SDK: a reduce-only order for the whole position is exempt from
// the $10 minimum order value; one that only reduces, and any non-reduce-only order, is not. The
// venue does not document the exemption (docs/sim.md, "Dust closes").
// A position worth about $6 is made by opening 0.0001 BTC at 120 000 ($12) and moving the mark to 60 000.
import type { Wallet } from "ethers";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { fundedWallet, randomCloid, startSim, statusesOf, type SimHarness } from "./_support.js";

let h: SimHarness;
test.before(async () => {
  h = await startSim();
});
test.after(async () => {
  await h.close();
});

const BTC = 0;
const MIN = "Order must have minimum value of $10. asset=0";
const user = (w: Wallet) => w.address.toLowerCase() as `0x${string}`;

function order(b: boolean, p: string, s: string, r: boolean, c = randomCloid()) {
  return { a: BTC, b, p, s, r, t: { limit: { tif: "Ioc" as const } }, c };
}

async function place(w: Wallet, o: ReturnType<typeof order>): Promise<any> {
  const [st] = await statusesOf(h.exchange(w).order({ orders: [o], grouping: "na" }));
  return st;
}

/** A fresh account holding 0.0001 BTC (long, or short with `long` false) worth about $6 at mark 60 000. */
async function dustPosition(long: boolean): Promise<Wallet> {
  const w = await fundedWallet(h.sim, 1_000);
  h.sim.setPrice("BTC", "120000");
  const opened = await place(w, order(long, long ? "121000" : "119000", "0.0001", false));
  assert.is(opened.filled?.totalSz, "0.0001", JSON.stringify(opened));
  h.sim.setPrice("BTC", "60000");
  return w;
}

async function sizeOf(w: Wallet): Promise<string | undefined> {
  const state = await h.info.clearinghouseState({ user: user(w) });
  return state.assetPositions.find((p) => p.position.coin === "BTC")?.position.szi;
}

async function statusOf(w: Wallet, c: `0x${string}`): Promise<string> {
  const s: any = await h.info.orderStatus({ user: user(w), oid: c });
  return s.order.status;
}

test("a reduce-only IOC for the whole $6 long closes it against the book", async () => {
  const w = await dustPosition(true);
  const close = order(false, "57000", "0.0001", true); // a market close: aggressive IOC, $5.70 at its limit
  const st = await place(w, close);
  assert.equal(st.filled && [st.filled.totalSz, st.filled.avgPx], ["0.0001", "59994.0"], JSON.stringify(st));
  assert.is(await sizeOf(w), undefined, "no position left");
  assert.is(await statusOf(w, close.c), "filled");
});

test("a reduce-only order larger than the dust position is exempt too and stops at the position", async () => {
  const w = await dustPosition(true);
  const st = await place(w, order(false, "59000", "0.00015", true)); // $8.85
  assert.is(st.filled?.totalSz, "0.0001", JSON.stringify(st));
  assert.is(await sizeOf(w), undefined);
});

test("a whole short closes with a reduce-only buy below $10", async () => {
  const w = await dustPosition(false);
  assert.is(await sizeOf(w), "-0.0001");
  const st = await place(w, order(true, "61000", "0.0001", true)); // $6.10
  assert.is(st.filled?.totalSz, "0.0001", JSON.stringify(st));
  assert.is(await sizeOf(w), undefined);
});

test("a reduce-only order that closes only part of the dust is refused as below the minimum", async () => {
  const w = await dustPosition(true);
  const partial = order(false, "57000", "0.00005", true);
  assert.equal(await place(w, partial), { error: MIN });
  assert.is(await statusOf(w, partial.c), "minTradeNtlRejected");
  assert.is(await sizeOf(w), "0.0001", "the position is untouched");
});

test("below $10, orders that are not a reduce-only close of the whole position are refused", async () => {
  const w = await dustPosition(true);
  const plain = order(false, "59000", "0.0001", false); // would close it too, but is not reduce-only
  assert.equal(await place(w, plain), { error: MIN });
  assert.is(await statusOf(w, plain.c), "minTradeNtlRejected");
  const sameSide = order(true, "61000", "0.0001", true); // reduce-only on the position's own side
  assert.equal(await place(w, sameSide), { error: MIN });
  const flat = await fundedWallet(h.sim, 1_000); // no position at all
  assert.equal(await place(flat, order(true, "61000", "0.0001", true)), { error: MIN });
  assert.equal(await place(flat, order(false, "57000", "0.0001", true)), { error: MIN });
  assert.is(await sizeOf(w), "0.0001");
});

test.run();
