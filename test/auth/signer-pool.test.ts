// Sign-in's signature check on a worker thread (auth/signer-pool.ts): the same answers as the check on
// the event loop, for good and bad signatures; the caller's thread does not do the work; checks still
// waiting when the thread ends are answered all the same, and later ones too.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { performance } from "node:perf_hooks";
import { hexlify, randomBytes, Wallet } from "ethers";
import { createSignerPool } from "../../daemon/auth/signer-pool.js";
import { recoverSigner } from "../../daemon/auth/signer.js";

async function signed(n: number) {
  return Promise.all(Array.from({ length: n }, async (_, i) => {
    const w = new Wallet(hexlify(randomBytes(32)));
    const message = `tradevault wants you to sign in ${i}`;
    return { message, signature: await w.signMessage(message), address: w.address.toLowerCase() };
  }));
}

test("answers as the check on the event loop does, garbage included", async () => {
  const pool = createSignerPool();
  try {
    const samples = await signed(4);
    const answers = await Promise.all(samples.map((s) => pool.recover(s.message, s.signature)));
    assert.equal(answers, samples.map((s) => s.address));
    const other = await pool.recover("another message", samples[0]!.signature);
    assert.is(other, recoverSigner("another message", samples[0]!.signature));
    assert.is.not(other, samples[0]!.address);
    assert.is(await pool.recover("x", `0x${"00".repeat(65)}`), undefined);
  } finally {
    await pool.close();
  }
});

test("handing 20 checks over costs the caller's thread a fraction of making them itself", async () => {
  const pool = createSignerPool();
  try {
    const samples = await signed(20);
    pool.warm();
    await pool.recover(samples[0]!.message, samples[0]!.signature);
    let t0 = performance.now();
    for (const s of samples) recoverSigner(s.message, s.signature);
    const inline = performance.now() - t0;
    t0 = performance.now();
    const pending = samples.map((s) => pool.recover(s.message, s.signature));
    const handedOver = performance.now() - t0;
    // About 40 ms against well under 1 ms on a quiet machine: the margin is for a loaded one.
    assert.ok(handedOver < inline / 2, `handing 20 checks over took ${handedOver.toFixed(2)} ms, making them here ${inline.toFixed(2)} ms`);
    assert.equal(await Promise.all(pending), samples.map((s) => s.address));
  } finally {
    await pool.close();
  }
});

test("checks waiting when the thread ends are answered, and later ones too", async () => {
  const pool = createSignerPool();
  const samples = await signed(10);
  const pending = samples.map((s) => pool.recover(s.message, s.signature));
  await pool.close();
  assert.equal(await Promise.all(pending), samples.map((s) => s.address));
  assert.is(await pool.recover(samples[0]!.message, samples[0]!.signature), samples[0]!.address);
});

test("the thread ends after a while with nothing to check, and the next check starts another", async () => {
  const pool = createSignerPool({ idleMs: 100 });
  try {
    const [s] = await signed(1);
    assert.is(pool.running(), false, "no thread before the first challenge");
    pool.warm();
    assert.is(pool.running(), true);
    assert.is(await pool.recover(s!.message, s!.signature), s!.address);
    // The idle timer was set when the answer came; a longer timer set after it fires after it, however
    // late the event loop runs, so this needs no clock.
    await new Promise((r) => setTimeout(r, 150));
    assert.is(pool.running(), false, "the idle thread did not end");
    assert.is(await pool.recover(s!.message, s!.signature), s!.address);
    assert.is(pool.running(), true);
  } finally {
    await pool.close();
  }
});

test.run();
