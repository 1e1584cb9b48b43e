// The scoped storage switches its AsyncLocalStorage off when its last run ends (no promise hook between
// runs); a run still in flight when another ends must keep its store.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { scopedStorage } from "../../daemon/lib/scoped-storage.js";

const tick = () => new Promise((r) => setTimeout(r, 1));

test("each run sees its own store across awaits, also when another run ends in between", async () => {
  const s = scopedStorage<string>();
  let releaseB!: () => void;
  const bHeld = new Promise<void>((r) => (releaseB = r));
  const seen: Array<string | undefined> = [];
  const b = s.run("b", async () => {
    await bHeld; // A starts and ends while B waits here
    seen.push(s.getStore());
    await tick();
    seen.push(s.getStore());
  });
  await s.run("a", async () => {
    await tick();
    seen.push(s.getStore());
  });
  releaseB();
  await b;
  assert.equal(seen, ["a", "b", "b"]);
});

test("outside every run the store is undefined, and a later run has its own again", async () => {
  const s = scopedStorage<number>();
  await s.run(1, async () => assert.is(s.getStore(), 1));
  assert.is(s.getStore(), undefined);
  await tick();
  assert.is(s.getStore(), undefined);
  assert.is(await s.run(2, async () => {
    await tick();
    return s.getStore();
  }), 2);
});

test("a run that throws still ends its scope", async () => {
  const s = scopedStorage<number>();
  await s.run(1, async () => {
    throw new Error("boom");
  }).catch(() => undefined);
  assert.is(s.getStore(), undefined);
  assert.is(await s.run(3, async () => s.getStore()), 3);
});

test.run();
