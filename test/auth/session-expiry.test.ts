// Session lifetime: 24 hours sliding, refreshed by use (written at most once a minute), capped by an
// absolute lifetime.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { sql } from "kysely";
import { randomWallet, signIn, startTestDaemon } from "../helpers/daemon.js";
import { rows } from "../helpers/stores.js";

const HOUR = 3600_000;

test("a session expires 24 h after its last refresh, and each request slides it", async () => {
  const d = await startTestDaemon();
  try {
    const { token } = await signIn(d.http, randomWallet());
    d.clock.advance(23 * HOUR);
    assert.is((await d.http.get("/api/account", { token })).status, 200);
    d.clock.advance(23 * HOUR); // 46 h after login, 23 h after the refresh
    const r = await d.http.get("/api/account", { token });
    assert.is(r.status, 200);
    assert.is(r.body.data.session.expiresAt, Math.floor((d.clock() + 24 * HOUR) / 1000));
    d.clock.advance(24 * HOUR + 1000);
    const expired = await d.http.get("/api/account", { token });
    assert.is(expired.status, 401);
    assert.is(expired.body.error.code, "UNAUTHENTICATED");
    assert.match(expired.body.error.message, /expired/);
    // and it stays dead: the row is gone
    assert.is((await d.http.get("/api/account", { token })).status, 401);
  } finally {
    await d.close();
  }
});

test("refreshes are written at most once a minute", async () => {
  const d = await startTestDaemon();
  try {
    const { token } = await signIn(d.http, randomWallet());
    const row = async () => (await rows(d.daemon.store, sql<{ refreshed_at: number; expires_at: number }>`select refreshed_at, expires_at from sessions`))[0]!;
    const first = await row();
    d.clock.advance(30_000);
    await d.http.get("/api/account", { token });
    assert.equal(await row(), first, "no write within the minute");
    d.clock.advance(31_000);
    await d.http.get("/api/account", { token });
    assert.is((await row()).refreshed_at, first.refreshed_at + 61_000);
    assert.is((await row()).expires_at, first.expires_at + 61_000);
  } finally {
    await d.close();
  }
});

test("the absolute lifetime caps a session that is used all the time", async () => {
  const d = await startTestDaemon({ config: { sessionMaxAgeDays: 2 } });
  try {
    const { token } = await signIn(d.http, randomWallet());
    for (let i = 0; i < 3; i++) {
      d.clock.advance(12 * HOUR);
      const r = await d.http.get("/api/account", { token });
      assert.is(r.status, 200, `after ${(i + 1) * 12} h`);
    }
    d.clock.advance(12 * HOUR - 1000);
    const last = await d.http.get("/api/account", { token });
    assert.is(last.status, 200);
    assert.is(last.body.data.session.expiresAt, Math.floor((d.clock() + 1000) / 1000), "capped at the absolute lifetime");
    d.clock.advance(1000); // exactly 48 h after login
    assert.is((await d.http.get("/api/account", { token })).status, 401);
  } finally {
    await d.close();
  }
});

test("a session survives a daemon restart (it lives in SQLite)", async () => {
  const first = await startTestDaemon();
  const { token } = await signIn(first.http, randomWallet());
  await first.daemon.stop();
  const second = await startTestDaemon({ dataDir: first.dataDir, clock: first.clock });
  try {
    assert.is((await second.http.get("/api/account", { token })).status, 200);
  } finally {
    await second.close();
    await first.close().catch(() => undefined);
  }
});

test.run();
