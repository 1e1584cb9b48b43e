// The helpers every test leans on: the package's root, free ports, and waits that wait for the event
// however long a loaded machine takes, naming themselves when they are slow.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { packageRoot } from "../../daemon/lib/package-root.js";
import { freePort, waitUntil, within } from "./util.js";

/** What `fn` wrote to console.error (which it sees as it grows), and its result. */
async function stderrOf<T>(fn: (said: string[]) => Promise<T>): Promise<{ value: T; said: string[] }> {
  const said: string[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => void said.push(args.join(" "));
  try {
    return { value: await fn(said), said };
  } finally {
    console.error = original;
  }
}

test("packageRoot finds the tradevault package", () => {
  assert.ok(existsSync(join(packageRoot(), "hardhat.config.cjs")));
});

test("freePort gives a usable loopback port", async () => {
  const port = await freePort();
  assert.ok(port > 0 && port < 65536);
});

test("waitUntil returns the first truthy value; a quick wait says nothing", async () => {
  let n = 0;
  const r = await stderrOf(() => waitUntil(() => (++n >= 3 ? n : 0), { intervalMs: 1 }));
  assert.is(r.value, 3);
  assert.equal(r.said, []);
});

test("a wait past slowMs goes on until the event, and names itself once, with the state and the last error asked then", async () => {
  let polls = 0;
  // The event is the note itself, and a few polls after it: the wait has gone on past slowMs.
  const r = await stderrOf((said) => waitUntil(() => {
    polls++;
    if (said.length === 0 || polls < 20) throw new Error("not yet");
    return "done";
  }, { slowMs: 30, intervalMs: 5, what: () => `the end (${polls > 1 ? "polled" : "asked early"})` }));
  assert.is(r.value, "done");
  assert.is(r.said.length, 1, r.said.join("\n"));
  assert.match(r.said[0]!, /^\[waitUntil\] still waiting after 30 ms for the end \(polled\); last error: Error: not yet$/);
});

test("within resolves as its promise does, naming it only when it is slow", async () => {
  const quick = await stderrOf(() => within(Promise.resolve(1), 1_000, "a quick one"));
  assert.equal([quick.value, quick.said], [1, []]);
  const slow = await stderrOf((said) => within(waitUntil(() => said.length > 0 && 2, { intervalMs: 5 }), 20, "a slow one"));
  assert.equal([slow.value, slow.said], [2, ["[within] still waiting after 20 ms for a slow one"]]);
});

test.run();
