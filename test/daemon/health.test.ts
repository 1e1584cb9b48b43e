// /healthz tells the truth: the oracle's last success and its age, and 503 once the oracle has not
// succeeded for three intervals (here: the external exchange it reads was stopped). And the daemon
// answers every request it accepts, from the first moment its port is open.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { resolveConfig } from "../../daemon/config.js";
import { createSim } from "../../daemon/main.js";
import { fakeClock, startTestDaemon } from "../helpers/daemon.js";
import { freePort, tempDir, waitUntil } from "../helpers/util.js";

test("with --exchange-url, /healthz follows that exchange and turns 503 within three intervals of it stopping", async () => {
  const simDir = tempDir();
  const sim = createSim(resolveConfig({ dataDir: simDir.path, simPort: await freePort(), simFeed: "static", simOnly: true }), Date.now);
  await sim.start();
  const simUrl = sim.url;
  const d = await startTestDaemon({
    clock: fakeClock(Date.now(), { realTime: true }),
    config: { exchangeUrl: `${simUrl}/`, oracleInterval: 1, staleAfter: 2 },
  });
  try {
    const ok = await waitUntil(async () => {
      const r = await d.http.get("/healthz");
      return r.status === 200 && r.body.data.oracle.lastSuccessAt !== null ? r : undefined;
    }, { what: "a first successful cycle", slowMs: 20_000 });
    assert.is(ok!.body.data.exchange.url, simUrl, "the external exchange, trailing slash dropped");
    assert.is(ok!.body.data.exchange.kind, "sim");
    assert.is(ok!.body.data.database.network, "sim-remote");
    assert.is(ok!.body.data.oracle.status, "ok");
    assert.ok(ok!.body.data.oracle.ageSeconds <= 3);
    // Each cycle with no vault probes the mids (2 weight): the meter counts every caller's weight.
    assert.ok(ok!.body.data.exchange.weightLastMinute >= 2, `weight in the last minute: ${ok!.body.data.exchange.weightLastMinute}`);

    await sim.stop();
    const down = await waitUntil(async () => {
      const r = await d.http.get("/healthz");
      return r.status === 503 ? r : undefined;
    }, { what: "503 after the exchange stopped", slowMs: 20_000 });
    assert.is(down!.body.ok, false);
    assert.is(down!.body.error.code, "SERVICE_UNAVAILABLE");
    assert.match(down!.body.error.message, /oracle/);
    assert.is(down!.body.data.oracle.status, "down");
    assert.ok(down!.body.data.oracle.ageSeconds > 3, "more than three 1-second intervals without a success");
    assert.is(down!.body.data.exchange.url, simUrl, "the keys the CLI reads are still there");
  } finally {
    await d.close();
    await sim.stop().catch(() => undefined);
    simDir.remove();
  }
});

test("before its first success the oracle's age runs from the start, so a daemon that never succeeds is unhealthy", async () => {
  const clock = fakeClock(Date.now());
  const d = await startTestDaemon({ clock, startOracle: false, config: { oracleInterval: 10, staleAfter: 20 } });
  try {
    const fresh = await d.http.get("/healthz");
    assert.is(fresh.status, 200);
    assert.is(fresh.body.data.oracle.lastSuccessAt, null);
    clock.advance(30_000);
    assert.is((await d.http.get("/healthz")).status, 200, "exactly three intervals: not yet");
    clock.advance(1_000);
    const r = await d.http.get("/healthz");
    assert.is(r.status, 503);
    assert.is(r.body.data.oracle.ageSeconds, 31);
  } finally {
    await d.close();
  }
});

test("a request that arrives the moment the port opens is answered (the app is in place before it listens)", async () => {
  const dir = tempDir();
  const port = await freePort();
  let stop = false;
  const outcomes = { answered: 0, refused: 0 };
  // Poll as fast as the loop allows while the daemon starts: refused before the port opens, and
  // answered after. One accepted and left hanging keeps the poller from ending (waited on below,
  // never timed: a busy machine answers late, not never).
  let polled = false;
  void (async () => {
    while (!stop) {
      try {
        const res = await fetch(`http://127.0.0.1:${port}/healthz`);
        await res.text();
        outcomes.answered += 1;
      } catch {
        outcomes.refused += 1;
        await new Promise((r) => setTimeout(r, 1));
      }
    }
  })().finally(() => (polled = true));
  const d = await startTestDaemon({ dataDir: join(dir.path, "d"), config: { port }, startOracle: false });
  try {
    await waitUntil(() => outcomes.answered >= 20, { what: "answers after start" });
  } finally {
    stop = true;
    await waitUntil(() => polled, { what: "the last poll answered (a request accepted and left unanswered never is)" });
    await d.close();
    dir.remove();
  }
  assert.ok(outcomes.refused > 0, `polling began before the port opened (${JSON.stringify(outcomes)})`);
});

test("a port already in use stops the start before anything is deployed", async () => {
  const first = await startTestDaemon({ startOracle: false });
  const dir = tempDir();
  try {
    const port = Number(new URL(first.url).port);
    let message = "";
    await startTestDaemon({ dataDir: dir.path, config: { port }, startOracle: false }).then(
      (d) => d.close(),
      (err: Error) => void (message = err.message),
    );
    assert.match(message, /already in use/);
    assert.equal(readdirSync(dir.path), [], "no database, key or chain record was created");
  } finally {
    await first.close();
    dir.remove();
  }
});

test.run();
